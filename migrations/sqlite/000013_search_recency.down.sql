-- The build before numbers search_docs upwards and indexes from a
-- (repo, key) cursor: the index starts empty again and its backfill
-- indexes every live entry, from the first.
DROP TABLE search_titles_fts;

DROP TABLE search_fts;
CREATE VIRTUAL TABLE search_fts USING fts5 (scope, title, body,
    content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 2');
DROP TABLE search_links_fts;
CREATE VIRTUAL TABLE search_links_fts USING fts5 (scope, line,
    content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 2');
DELETE FROM search_links;
DELETE FROM search_docs;
DELETE FROM search_pending;

DROP TABLE search_backfill;
CREATE TABLE search_backfill (
    id   INTEGER PRIMARY KEY CHECK (id = 1),
    repo TEXT NOT NULL, -- the last entry indexed so far
    key  TEXT NOT NULL
) STRICT;
INSERT INTO search_backfill (id, repo, key) SELECT 1, '', '' WHERE EXISTS (SELECT 1 FROM entries WHERE deleted = 0);
