-- The build before reads the title as the weight-A words of entries.search:
-- the backfill starts again and writes every vector as that build does.
INSERT INTO search_backfill (id, repo, key) SELECT 1, '', '' WHERE EXISTS (SELECT 1 FROM entries WHERE NOT deleted)
    ON CONFLICT (id) DO UPDATE SET repo = '', key = '';
