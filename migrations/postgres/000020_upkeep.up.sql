-- Upkeep: when each key was last read where the server sees reads
-- (read_memory, search hits, the web UI), written coalesced, a stamp per
-- key; each repository's upkeep settings (the unused check's days, the
-- daily tidy); and since when reads are kept (this migration's time).

CREATE TABLE key_reads (
    repo    text COLLATE "C" NOT NULL,
    key     text COLLATE "C" NOT NULL,
    read_at timestamptz      NOT NULL,
    PRIMARY KEY (repo, key)
);

CREATE TABLE repo_upkeep (
    repo        text COLLATE "C" NOT NULL PRIMARY KEY,
    unused_days integer          NOT NULL DEFAULT 0,
    daily_tidy  boolean          NOT NULL DEFAULT false,
    -- when a replica last claimed the daily tidy (null: never)
    tidied_at   timestamptz
);

CREATE TABLE reads_kept_since (
    one   integer     NOT NULL PRIMARY KEY CHECK (one = 1),
    since timestamptz NOT NULL
);

INSERT INTO reads_kept_since (one, since) VALUES (1, now());
