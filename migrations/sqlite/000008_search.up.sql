-- Search (issue 23). Every live entry has one search_docs row and, under the
-- same rowid, one row of the contentless FTS5 table search_fts holding its
-- words: scope (one token naming the repository, so that a search of one
-- repository is one index lookup), title (the key's words, its frontmatter
-- name and description) and body (the content's words). The words are
-- normalised by the server (server/internal/searchtext: lower case, no
-- diacritics, identifiers and paths split into their parts) before they are
-- stored, so both stores index the same text; FTS5 keeps only the index, the
-- content stays in revisions. Each line of a memory index (MEMORY.md) that
-- links an entry is one search_links row and one search_links_fts row.
-- Every row is written in the transaction of the write that changes the
-- entry.
--
-- Entries written before this migration are indexed by the server after it
-- opens the database, in batches of a few hundred entries, each in its own
-- short write transaction between the clients' writes, resuming from the key
-- in search_backfill (its row is removed when done): on a large database the
-- migration itself stays instant and writes are never held for long. Until
-- then a search finds only the entries indexed so far.

CREATE TABLE search_docs (
    id   INTEGER PRIMARY KEY,
    repo TEXT NOT NULL,
    key  TEXT NOT NULL,
    UNIQUE (repo, key)
) STRICT;

CREATE VIRTUAL TABLE search_fts USING fts5 (scope, title, body,
    content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 2');

CREATE TABLE search_links (
    id     INTEGER PRIMARY KEY,
    repo   TEXT NOT NULL,
    source TEXT NOT NULL, -- the index (MEMORY.md) holding the line
    key    TEXT NOT NULL, -- the entry it links
    UNIQUE (repo, source, key)
) STRICT;

CREATE VIRTUAL TABLE search_links_fts USING fts5 (scope, line,
    content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 2');

CREATE TABLE search_backfill (
    id   INTEGER PRIMARY KEY CHECK (id = 1),
    repo TEXT NOT NULL, -- the last entry indexed so far
    key  TEXT NOT NULL
) STRICT;

INSERT INTO search_backfill (id, repo, key) SELECT 1, '', '' WHERE EXISTS (SELECT 1 FROM entries);
