-- Search (issue 23): the index holds the parts of camelCase words too
-- (RetryPush is also "retry push"; server/internal/searchtext.CamelParts).
-- The backfill of migration 8 indexes every live entry again, in the
-- background, from the first one; meanwhile an entry is found by the words
-- it was indexed with.

INSERT INTO search_backfill (id, repo, key) SELECT 1, '', '' WHERE EXISTS (SELECT 1 FROM entries WHERE deleted = 0)
    ON CONFLICT (id) DO UPDATE SET repo = '', key = '';
