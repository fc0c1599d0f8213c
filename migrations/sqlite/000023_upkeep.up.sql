-- Upkeep: when each key was last read where the server sees reads
-- (read_memory, search hits, the web UI), written coalesced, a stamp per
-- key; each repository's upkeep settings (the unused check's days, the
-- daily tidy); and since when reads are kept (this migration's time).
-- Times are Unix microseconds (UTC).

CREATE TABLE key_reads (
    repo    TEXT    NOT NULL,
    key     TEXT    NOT NULL,
    read_at INTEGER NOT NULL,
    PRIMARY KEY (repo, key)
) STRICT, WITHOUT ROWID;

CREATE TABLE repo_upkeep (
    repo        TEXT    NOT NULL PRIMARY KEY,
    unused_days INTEGER NOT NULL DEFAULT 0,
    daily_tidy  INTEGER NOT NULL DEFAULT 0,
    -- when a replica last claimed the daily tidy (0: never)
    tidied_at   INTEGER NOT NULL DEFAULT 0
) STRICT, WITHOUT ROWID;

CREATE TABLE reads_kept_since (
    one   INTEGER NOT NULL PRIMARY KEY CHECK (one = 1),
    since INTEGER NOT NULL
) STRICT;

INSERT INTO reads_kept_since (one, since) VALUES (1, CAST(unixepoch('subsec') * 1000000 AS INTEGER));
