-- The build before indexes in each write: the keys still pending are
-- indexed again by its backfill (every live entry, from the first).
DROP TABLE search_pending;

INSERT INTO search_backfill (id, repo, key) SELECT 1, '', '' WHERE EXISTS (SELECT 1 FROM entries WHERE deleted = 0)
    ON CONFLICT (id) DO UPDATE SET repo = '', key = '';
