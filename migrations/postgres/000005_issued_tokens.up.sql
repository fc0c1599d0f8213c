-- Tokens the server's signing key issued (teammem-server token create, the
-- first start's admin.token), for token list and for refusing to revoke an
-- id that was never issued. The token itself is never stored.

CREATE TABLE issued_tokens (
    token_id   text COLLATE "C" NOT NULL PRIMARY KEY,
    subject    text             NOT NULL,
    grants     text[]           NOT NULL,
    issued_at  timestamptz      NOT NULL,
    expires_at timestamptz      NOT NULL
);
