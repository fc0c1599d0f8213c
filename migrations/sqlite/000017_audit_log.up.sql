-- The append-only audit log (server.AuditLog): one hash chain per
-- repository (chain = its slug) and one for the server (chain = '').
-- Each entry's hash is SHA-256(prev || seq as 8 big-endian bytes || body),
-- body the record's JSON as hashed; prev is the hash of the entry before
-- (empty for a chain's first). audit_heads holds each chain's last entry:
-- appends read and move it in the writing transaction. Checkpoints are
-- heads signed with the server's Ed25519 key. Times are Unix microseconds.

CREATE TABLE audit_log (
    chain   TEXT    NOT NULL,
    seq     INTEGER NOT NULL,
    at      INTEGER NOT NULL,
    subject TEXT    NOT NULL,
    prev    BLOB    NOT NULL,
    hash    BLOB    NOT NULL,
    body    BLOB    NOT NULL,
    PRIMARY KEY (chain, seq)
) STRICT, WITHOUT ROWID;

CREATE TABLE audit_heads (
    chain TEXT    NOT NULL PRIMARY KEY,
    seq   INTEGER NOT NULL,
    hash  BLOB    NOT NULL
) STRICT, WITHOUT ROWID;

CREATE TABLE audit_checkpoints (
    chain     TEXT    NOT NULL,
    seq       INTEGER NOT NULL,
    hash      BLOB    NOT NULL,
    at        INTEGER NOT NULL,
    key_id    TEXT    NOT NULL,
    signature BLOB    NOT NULL,
    PRIMARY KEY (chain, seq)
) STRICT, WITHOUT ROWID;
