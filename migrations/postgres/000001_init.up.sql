-- teammem schema: repositories, their entries (live and tombstoned) and one
-- revision per changed key per version. Keys and slugs use COLLATE "C" so that
-- every ORDER BY sorts in byte order, as the dataset checksum requires.

CREATE TABLE repos (
    slug        text COLLATE "C" PRIMARY KEY,
    version     bigint      NOT NULL DEFAULT 0,
    checksum    text        NOT NULL,
    entries     integer     NOT NULL DEFAULT 0,
    bytes       bigint      NOT NULL DEFAULT 0,
    updated_at  timestamptz NOT NULL,
    since_floor bigint      NOT NULL DEFAULT 0
);

CREATE TABLE entries (
    repo       text COLLATE "C" NOT NULL REFERENCES repos (slug) ON DELETE CASCADE,
    key        text COLLATE "C" NOT NULL,
    folded_key text COLLATE "C" NOT NULL,
    checksum   text        NOT NULL,
    size       bigint      NOT NULL,
    content    text        NOT NULL,
    version    bigint      NOT NULL,
    updated_at timestamptz NOT NULL,
    deleted    boolean     NOT NULL DEFAULT false,
    deleted_at timestamptz,
    PRIMARY KEY (repo, key)
);

-- Snapshot with since: keys changed after a version.
CREATE INDEX entries_repo_version ON entries (repo, version);
-- Case-fold collision checks against live keys.
CREATE INDEX entries_repo_folded_live ON entries (repo, folded_key) WHERE NOT deleted;
-- Tombstone purging by age.
CREATE INDEX entries_deleted_at ON entries (deleted_at) WHERE deleted;

CREATE TABLE revisions (
    repo     text COLLATE "C" NOT NULL REFERENCES repos (slug) ON DELETE CASCADE,
    key      text COLLATE "C" NOT NULL,
    version  bigint      NOT NULL,
    op       text        NOT NULL CHECK (op IN ('put', 'delete')),
    checksum text        NOT NULL,
    size     bigint      NOT NULL,
    author   text        NOT NULL,
    at       timestamptz NOT NULL,
    content  text        NOT NULL,
    PRIMARY KEY (repo, key, version)
);

-- Event replay: every revision of a repo after a version.
CREATE INDEX revisions_repo_version ON revisions (repo, version);
