-- Entries keep only metadata, clustered by (repo, key): the content of a live
-- entry is that of its revision at the entry's version (every put stores one,
-- in the same transaction), so a write stores its content once, in revisions,
-- and a metadata read scans small rows. Purging tombstones never deletes
-- revisions.

CREATE TABLE entries_meta (
    repo       TEXT    NOT NULL REFERENCES repos (slug) ON DELETE CASCADE,
    key        TEXT    NOT NULL,
    folded_key TEXT    NOT NULL,
    checksum   TEXT    NOT NULL,
    size       INTEGER NOT NULL,
    version    INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    deleted    INTEGER NOT NULL DEFAULT 0,
    deleted_at INTEGER,
    PRIMARY KEY (repo, key)
) STRICT, WITHOUT ROWID;

INSERT INTO entries_meta (repo, key, folded_key, checksum, size, version, updated_at, deleted, deleted_at)
    SELECT repo, key, folded_key, checksum, size, version, updated_at, deleted, deleted_at FROM entries;
DROP TABLE entries;
ALTER TABLE entries_meta RENAME TO entries;

-- Tombstone purging by age.
CREATE INDEX entries_deleted_at ON entries (deleted_at) WHERE deleted = 1;
