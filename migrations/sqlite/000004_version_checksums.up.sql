-- The dataset checksum of every version, for the events stream: an event
-- replayed from history carries the checksum the repository had after that
-- version. Written in the same transaction as the version's revisions.
-- Versions written before this migration have no row (their events carry
-- an empty checksum).

CREATE TABLE versions (
    repo     TEXT    NOT NULL,
    version  INTEGER NOT NULL,
    checksum TEXT    NOT NULL,
    PRIMARY KEY (repo, version)
) STRICT, WITHOUT ROWID;
