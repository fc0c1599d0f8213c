-- Search ranks in three tiers and stems English (server/internal/searchtext):
-- words of prose are indexed by their stem ("Deploys" as "deploy"), identifiers
-- and their parts as written; an entry whose name (the key's words, its file
-- name, the frontmatter name) holds every term ranks first, then one whose
-- description or index line does, then the rest; the body's index no longer
-- holds the frontmatter's name and description (the title does).
--
-- search_names_fts holds each entry's name alone, under its search_docs id, and
-- each name word behind the repository's scope token in its scoped column (as
-- search_titles_fts does for the whole title, see migration 13): the named
-- entries are found by a walk of the names' doclists, shorter than the
-- titles'. Every FTS5 table starts empty and the backfill indexes every live
-- entry again, newest first, from search_backfill's cursor, numbered as
-- migration 13 numbers them. Meanwhile a search finds the entries indexed so
-- far.

CREATE VIRTUAL TABLE search_names_fts USING fts5 (scope, name, scoped,
    content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 2');

DROP TABLE search_titles_fts;
CREATE VIRTUAL TABLE search_titles_fts USING fts5 (scope, title, scoped,
    content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 2');

DROP TABLE search_fts;
CREATE VIRTUAL TABLE search_fts USING fts5 (scope, title, body,
    content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 2');

DROP TABLE search_links_fts;
CREATE VIRTUAL TABLE search_links_fts USING fts5 (scope, line,
    content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 2');
DELETE FROM search_links;

DELETE FROM search_docs;
INSERT INTO search_docs (id, repo, key)
    SELECT -row_number() OVER (ORDER BY updated_at, repo DESC, key DESC), repo, key FROM entries WHERE deleted = 0;

-- The backfill indexes every entry: the marks are done with.
DELETE FROM search_pending;

DELETE FROM search_backfill;
INSERT INTO search_backfill (id, doc) SELECT 1, min(id) - 1 FROM search_docs HAVING count(*) > 0;
