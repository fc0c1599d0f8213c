-- teammem schema: repositories, their entries (live and tombstoned) and one
-- revision per changed key per version. Text compares with the default BINARY
-- collation, which is byte order, as the dataset checksum requires. Times are
-- Unix microseconds (UTC).

CREATE TABLE repos (
    slug        TEXT    NOT NULL PRIMARY KEY,
    version     INTEGER NOT NULL DEFAULT 0,
    checksum    TEXT    NOT NULL,
    entries     INTEGER NOT NULL DEFAULT 0,
    bytes       INTEGER NOT NULL DEFAULT 0,
    updated_at  INTEGER NOT NULL,
    since_floor INTEGER NOT NULL DEFAULT 0
) STRICT;

CREATE TABLE entries (
    repo       TEXT    NOT NULL REFERENCES repos (slug) ON DELETE CASCADE,
    key        TEXT    NOT NULL,
    folded_key TEXT    NOT NULL,
    checksum   TEXT    NOT NULL,
    size       INTEGER NOT NULL,
    version    INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    deleted    INTEGER NOT NULL DEFAULT 0,
    deleted_at INTEGER,
    content    TEXT    NOT NULL, -- last: large values spill to overflow pages
    PRIMARY KEY (repo, key)
) STRICT;

-- Snapshot with since: keys changed after a version.
CREATE INDEX entries_repo_version ON entries (repo, version);
-- Case-fold collision checks against live keys.
CREATE INDEX entries_repo_folded_live ON entries (repo, folded_key) WHERE deleted = 0;
-- Tombstone purging by age.
CREATE INDEX entries_deleted_at ON entries (deleted_at) WHERE deleted = 1;

CREATE TABLE revisions (
    repo     TEXT    NOT NULL REFERENCES repos (slug) ON DELETE CASCADE,
    key      TEXT    NOT NULL,
    version  INTEGER NOT NULL,
    op       TEXT    NOT NULL CHECK (op IN ('put', 'delete')),
    checksum TEXT    NOT NULL,
    size     INTEGER NOT NULL,
    author   TEXT    NOT NULL,
    at       INTEGER NOT NULL,
    content  TEXT    NOT NULL, -- last: large values spill to overflow pages
    PRIMARY KEY (repo, key, version)
) STRICT;

-- Event replay: every revision of a repo after a version.
CREATE INDEX revisions_repo_version ON revisions (repo, version);
