CREATE TABLE entries_full (
    repo       TEXT    NOT NULL REFERENCES repos (slug) ON DELETE CASCADE,
    key        TEXT    NOT NULL,
    folded_key TEXT    NOT NULL,
    checksum   TEXT    NOT NULL,
    size       INTEGER NOT NULL,
    version    INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    deleted    INTEGER NOT NULL DEFAULT 0,
    deleted_at INTEGER,
    content    TEXT    NOT NULL,
    PRIMARY KEY (repo, key)
) STRICT;

INSERT INTO entries_full (repo, key, folded_key, checksum, size, version, updated_at, deleted, deleted_at, content)
    SELECT e.repo, e.key, e.folded_key, e.checksum, e.size, e.version, e.updated_at, e.deleted, e.deleted_at,
        CASE WHEN e.deleted = 0 THEN coalesce((SELECT r.content FROM revisions r
            WHERE r.repo = e.repo AND r.key = e.key AND r.version = e.version), '') ELSE '' END
    FROM entries e;
DROP TABLE entries;
ALTER TABLE entries_full RENAME TO entries;

CREATE INDEX entries_deleted_at ON entries (deleted_at) WHERE deleted = 1;
CREATE INDEX entries_repo_meta ON entries (repo, key, checksum, size, version, updated_at, deleted, deleted_at);
