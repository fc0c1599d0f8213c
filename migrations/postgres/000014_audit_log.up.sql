-- The append-only audit log (server.AuditLog): one hash chain per
-- repository (chain = its slug) and one for the server (chain = '').
-- Each entry's hash is sha256(prev || int8send(seq) || body), body the
-- record's JSON as hashed (bytea: its bytes are kept exactly); prev is the
-- hash of the entry before (empty for a chain's first). audit_heads holds
-- each chain's last entry: an append moves it with INSERT ... ON CONFLICT
-- DO UPDATE, which locks the chain's row until the writing transaction
-- ends, so appends to one chain from several servers are serialised.
-- Checkpoints are heads signed with the server's Ed25519 key.

CREATE TABLE audit_log (
    chain   text        NOT NULL COLLATE "C",
    seq     bigint      NOT NULL,
    at      timestamptz NOT NULL,
    subject text        NOT NULL,
    prev    bytea       NOT NULL,
    hash    bytea       NOT NULL,
    body    bytea       NOT NULL,
    PRIMARY KEY (chain, seq)
);

CREATE INDEX audit_log_at ON audit_log (at);

CREATE TABLE audit_heads (
    chain text   NOT NULL COLLATE "C" PRIMARY KEY,
    seq   bigint NOT NULL,
    prev  bytea  NOT NULL,
    hash  bytea  NOT NULL
);

CREATE TABLE audit_checkpoints (
    chain     text        NOT NULL COLLATE "C",
    seq       bigint      NOT NULL,
    hash      bytea       NOT NULL,
    at        timestamptz NOT NULL,
    key_id    text        NOT NULL,
    signature bytea       NOT NULL,
    PRIMARY KEY (chain, seq)
);
