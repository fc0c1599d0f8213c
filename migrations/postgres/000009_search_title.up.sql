-- Search candidates (issue 23). A search ranks a bounded set of candidates
-- (server.SearchCandidates), first those whose title holds every term. The
-- title's words were only in entries.search, weight A, whose vector (about
-- 2.5 KB for a 2 KB note) is stored out of line: checking the title of each
-- candidate read it from TOAST, the most of a search's time. The title's
-- words (the key's, the frontmatter name's and description's, normalised as
-- in entries.search) get their own small vector, stored in the row, NULL
-- for a tombstone and, until the backfill reaches it, for an entry written
-- before this migration (the search then reads the title from
-- entries.search as before).
--
-- The vectors also hold the parts of camelCase words now (RetryPush is also
-- "retry push"; server/internal/searchtext.CamelParts), and the server
-- builds them as tsvector text from its own words (server/postgres,
-- tsvectorText) instead of calling to_tsvector: teammem_search_vector is no
-- longer called.
--
-- Adding a NULL column changes no row, so the migration is quick on a large
-- database; the backfill (see 000006_search) starts again from the first
-- entry and writes both vectors.

ALTER TABLE entries ADD COLUMN search_title tsvector;

INSERT INTO search_backfill (id, repo, key) SELECT 1, '', '' WHERE EXISTS (SELECT 1 FROM entries WHERE NOT deleted)
    ON CONFLICT (id) DO UPDATE SET repo = '', key = '';
