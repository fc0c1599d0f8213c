-- Token revocations (teammem-server token revoke). A token is refused when
-- its id (the jti claim) is in revoked_tokens, or when its subject is in
-- revoked_subjects and it was issued (the iat claim) before issued_before.
-- Rows are only added (a subject's issued_before only moves later): teammem
-- never undoes a revocation. Every server reads both tables whole at most
-- once per --revocation-refresh. Times are Unix microseconds (UTC).

CREATE TABLE revoked_tokens (
    token_id   TEXT    NOT NULL PRIMARY KEY,
    revoked_at INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

CREATE TABLE revoked_subjects (
    subject       TEXT    NOT NULL PRIMARY KEY,
    issued_before INTEGER NOT NULL,
    revoked_at    INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
