-- Review of writes (server.ReviewPolicy, server.Proposal). A repository's
-- policy is a row of review_policies (none: off). A proposal is a change
-- set waiting for a reviewer: its keys in proposal_changes, each with the
-- text it replaces (base, NULL when the key was absent) so that an
-- approval after the key moved can merge. The author's provenance is kept
-- as JSON (server.Provenance) and becomes the approved write's. The write
-- that applies an approval names its reviewer and proposal in versions.
-- Times are Unix microseconds (UTC).

ALTER TABLE versions ADD COLUMN approved_by TEXT    NOT NULL DEFAULT '';
ALTER TABLE versions ADD COLUMN proposal    INTEGER NOT NULL DEFAULT 0;

CREATE TABLE review_policies (
    repo   TEXT    NOT NULL PRIMARY KEY,
    review TEXT    NOT NULL CHECK (review IN ('off', 'changes', 'all')),
    set_at INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

CREATE TABLE proposals (
    id              INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    repo            TEXT    NOT NULL,
    state           TEXT    NOT NULL CHECK (state IN ('open', 'approved', 'rejected', 'withdrawn')),
    author          TEXT    NOT NULL,
    provenance      TEXT    NOT NULL,
    base_version    INTEGER NOT NULL,
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL,
    decided_by      TEXT    NOT NULL DEFAULT '',
    decided_at      INTEGER NOT NULL DEFAULT 0,
    comment         TEXT    NOT NULL DEFAULT '',
    applied_version INTEGER NOT NULL DEFAULT 0
) STRICT;

-- A repository's queue, newest first; the open proposal of an author.
CREATE INDEX proposals_repo ON proposals (repo, state, id);
CREATE INDEX proposals_state ON proposals (state, id);
CREATE INDEX proposals_open_author ON proposals (repo, author) WHERE state = 'open';

CREATE TABLE proposal_changes (
    proposal     INTEGER NOT NULL REFERENCES proposals (id) ON DELETE CASCADE,
    key          TEXT    NOT NULL,
    op           TEXT    NOT NULL CHECK (op IN ('put', 'delete')),
    checksum     TEXT    NOT NULL,
    base         TEXT,
    content      TEXT    NOT NULL,
    PRIMARY KEY (proposal, key)
) STRICT, WITHOUT ROWID;
