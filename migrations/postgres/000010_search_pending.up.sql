-- Search (issue 23): a write no longer computes and stores its entries'
-- search vectors in its own transaction; it records each key it changes in
-- search_pending, in that transaction, and the vectors (entries.search,
-- entries.search_title, search_links) are brought up to date from the marks
-- before any search reads them, by whichever replica searches, and in the
-- background once the writing replica's writes pause. Until then a marked
-- entry keeps the vectors of its content before the write, which no search
-- reads. A key written a thousand times between two searches is indexed
-- once, with its last content; a search still sees every acknowledged
-- write on every replica, and a crash loses no mark. The marks of a
-- repository are indexed under its row lock, taken first as a write takes
-- it, so that a write and the indexing of its keys never interleave
-- (server/postgres/search_pending.go).
--
-- An empty new table: the migration is quick on a large database.

CREATE TABLE search_pending (
    repo text COLLATE "C" NOT NULL,
    key  text COLLATE "C" NOT NULL,
    PRIMARY KEY (repo, key)
);
