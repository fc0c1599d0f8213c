-- Review of writes (server.ReviewPolicy, server.Proposal). A repository's
-- policy is a row of review_policies (none: off). A proposal is a change
-- set waiting for a reviewer: its keys in proposal_changes, each with the
-- text it replaces (base, NULL when the key was absent) so that an
-- approval after the key moved can merge. The author's provenance is kept
-- as JSON (server.Provenance) and becomes the approved write's. The write
-- that applies an approval names its reviewer and proposal in versions.

ALTER TABLE versions ADD COLUMN approved_by text   NOT NULL DEFAULT '';
ALTER TABLE versions ADD COLUMN proposal    bigint NOT NULL DEFAULT 0;

CREATE TABLE review_policies (
    repo   text COLLATE "C" NOT NULL PRIMARY KEY,
    review text             NOT NULL CHECK (review IN ('off', 'changes', 'all')),
    set_at timestamptz      NOT NULL
);

CREATE TABLE proposals (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    repo            text COLLATE "C" NOT NULL,
    state           text        NOT NULL CHECK (state IN ('open', 'approved', 'rejected', 'withdrawn')),
    author          text        NOT NULL,
    provenance      text        NOT NULL,
    base_version    bigint      NOT NULL,
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL,
    decided_by      text        NOT NULL DEFAULT '',
    decided_at      timestamptz,
    comment         text        NOT NULL DEFAULT '',
    applied_version bigint      NOT NULL DEFAULT 0
);

-- A repository's queue, newest first; the open proposal of an author.
CREATE INDEX proposals_repo ON proposals (repo, state, id);
CREATE INDEX proposals_state ON proposals (state, id);
CREATE INDEX proposals_open_author ON proposals (repo, author) WHERE state = 'open';

CREATE TABLE proposal_changes (
    proposal bigint NOT NULL REFERENCES proposals (id) ON DELETE CASCADE,
    key      text COLLATE "C" NOT NULL,
    op       text   NOT NULL CHECK (op IN ('put', 'delete')),
    checksum text   NOT NULL,
    base     text,
    content  text   NOT NULL,
    PRIMARY KEY (proposal, key)
);
