-- The build before indexes in each write and reads every vector as current.
-- A marked key's vectors may be those of an older content: a deleted
-- entry's are dropped, as are the lines of a marked memory index, and the
-- backfill indexes every live entry again, from the first.
UPDATE entries e SET search = NULL, search_title = NULL
    FROM search_pending p WHERE e.repo = p.repo AND e.key = p.key AND e.deleted;
DELETE FROM search_links l USING search_pending p WHERE l.repo = p.repo AND l.source = p.key;
INSERT INTO search_backfill (id, repo, key) SELECT 1, '', '' WHERE EXISTS (SELECT 1 FROM search_pending)
    ON CONFLICT (id) DO UPDATE SET repo = '', key = '';
DROP TABLE search_pending;
