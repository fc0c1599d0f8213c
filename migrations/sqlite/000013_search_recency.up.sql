-- Search ranks by recency (issue 24): within a tier, the entry written most
-- recently comes first, and a page reads only as many matches as it shows.
--
-- A search_docs id now orders the entries by their last write, newest
-- lowest: every indexed put moves its key to an id below all others
-- (server/sqlite/search_index.go). FTS5 walks a doclist in rowid order
-- forwards at about half the cost of backwards, and stops after the
-- page's rows. The entries are numbered here by updated_at (ties by
-- repository and key, the first lowest); the FTS5 tables cannot be
-- renumbered in SQL, so they start empty and the backfill indexes every
-- entry again, in the background, newest first, from search_backfill's
-- cursor (the last id indexed). Meanwhile a search finds the entries
-- indexed so far.
--
-- search_titles_fts holds each entry's title alone (the key's words,
-- frontmatter name and description) under its search_docs id: the
-- entries whose title holds every term, the first tier, are found by a
-- walk of short doclists instead of a column filter over every match.
-- Its scoped column holds each title word behind the repository's scope
-- token (one token: "r" + 16 hex digits + the word; the scope token alone
-- in place of a word that is not ASCII), so that a search of one
-- repository walks that repository's doclists only.

DROP TABLE search_fts;
CREATE VIRTUAL TABLE search_fts USING fts5 (scope, title, body,
    content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 2');

CREATE VIRTUAL TABLE search_titles_fts USING fts5 (scope, title, scoped,
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

DROP TABLE search_backfill;
CREATE TABLE search_backfill (
    id  INTEGER PRIMARY KEY CHECK (id = 1),
    doc INTEGER NOT NULL -- the last search_docs id indexed so far
) STRICT;
INSERT INTO search_backfill (id, doc) SELECT 1, min(id) - 1 FROM search_docs HAVING count(*) > 0;
