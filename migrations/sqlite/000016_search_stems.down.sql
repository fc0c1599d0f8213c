-- The build before has no search_names_fts and indexes words unstemmed: the
-- index starts empty again and its backfill indexes every live entry, newest
-- first.
DROP TABLE search_names_fts;

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
DELETE FROM search_pending;

DELETE FROM search_backfill;
INSERT INTO search_backfill (id, doc) SELECT 1, min(id) - 1 FROM search_docs HAVING count(*) > 0;
