-- Search (issue 23): a write no longer indexes its entries in its own
-- transaction; it records each key it changes in search_pending, in that
-- transaction, and the index is brought up to date from them before any
-- search reads it (and in the background once writes pause). A key written
-- a thousand times between two searches is indexed once, with its last
-- content; a search still sees every acknowledged write, and a crash loses
-- no mark (server/sqlite/search_pending.go).

CREATE TABLE search_pending (
    repo TEXT NOT NULL,
    key  TEXT NOT NULL,
    PRIMARY KEY (repo, key)
) STRICT, WITHOUT ROWID;
