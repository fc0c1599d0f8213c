-- Search ranks in three tiers and stems English (server/internal/searchtext):
-- words of prose are indexed by their stem ("Deploys" as "deploy"), identifiers
-- and their parts as written; an entry whose name (the key's words, its file
-- name, the frontmatter name) holds every term ranks first, then one whose
-- description or index line does, then the rest; the body's words no longer
-- hold the frontmatter's name and description (the title does).
--
-- entries.search holds the name with weight A and the description with weight
-- B (the whole title was A); entries.search_title holds the name with weight A
-- and the description without a weight. No column changes: the backfill (see
-- 000006_search) starts again from the first entry and writes every vector and
-- index line anew. Meanwhile an entry is found by the words it was indexed
-- with (a query matches the words as typed as well as their stems).

INSERT INTO search_backfill (id, repo, key) SELECT 1, '', '' WHERE EXISTS (SELECT 1 FROM entries WHERE NOT deleted)
    ON CONFLICT (id) DO UPDATE SET repo = '', key = '';
