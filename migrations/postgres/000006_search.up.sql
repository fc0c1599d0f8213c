-- Search (issue 23). A live entry's words are in entries.search, a tsvector
-- written by the statement that writes the entry (NULL for a tombstone and,
-- until the backfill reaches it, for an entry written before this
-- migration): the repository's scope token (weight C, so that a search of
-- one repository is one GIN lookup), the title — the key's words, the
-- frontmatter name and description — (A) and the content's words (D). The
-- words are normalised by the server (server/internal/searchtext: lower case,
-- no diacritics, identifiers and paths split into their parts) and indexed
-- with the 'simple' configuration, so both stores index the same text and no
-- extension (unaccent, pg_trgm) is needed. Each memory index (MEMORY.md) line
-- linking an entry is one search_links row, replaced with the index.
--
-- Adding a NULL column changes no row, so the migration is quick on a large
-- database; the GIN index is built over NULLs (a scan of entries, no
-- tsvector computed). Existing entries are then indexed by the servers,
-- one repository at a time in batches of 200 entries, each batch in its own
-- transaction holding the repository's row lock as a write does (one replica
-- at a time, resuming from the key in search_backfill, whose row is removed
-- when done). Until then a search finds only the entries indexed so far.

CREATE FUNCTION teammem_search_vector(scope text, title text, body text) RETURNS tsvector
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN setweight(to_tsvector('simple', scope), 'C') || setweight(to_tsvector('simple', title), 'A')
        || setweight(to_tsvector('simple', body), 'D');

ALTER TABLE entries ADD COLUMN search tsvector;
CREATE INDEX entries_search ON entries USING gin (search);

CREATE TABLE search_links (
    repo   text COLLATE "C" NOT NULL,
    source text COLLATE "C" NOT NULL, -- the index holding the line
    key    text COLLATE "C" NOT NULL, -- the entry it links
    line   tsvector NOT NULL,         -- scope token (C) and the line's words (D)
    PRIMARY KEY (repo, source, key)
);
CREATE INDEX search_links_line ON search_links USING gin (line);

CREATE TABLE search_backfill (
    id   integer PRIMARY KEY CHECK (id = 1),
    repo text COLLATE "C" NOT NULL, -- the last entry indexed so far
    key  text COLLATE "C" NOT NULL
);
INSERT INTO search_backfill (id, repo, key) SELECT 1, '', '' WHERE EXISTS (SELECT 1 FROM entries);
