-- Tokens the server's signing key issued (teammem-server token create, the
-- first start's admin.token), for token list and for refusing to revoke an
-- id that was never issued. The token itself is never stored. grants is a
-- JSON array of GLOB:PERM strings. Times are Unix microseconds (UTC).

CREATE TABLE issued_tokens (
    token_id   TEXT    NOT NULL PRIMARY KEY,
    subject    TEXT    NOT NULL,
    grants     TEXT    NOT NULL,
    issued_at  INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
