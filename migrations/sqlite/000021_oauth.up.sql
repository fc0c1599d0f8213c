-- The OAuth authorization server's state (server.OAuthStore). Clients
-- registered by Dynamic Client Registration; one row per consented
-- session, which holds its authorization code's hash until the code is
-- exchanged and then lives on as a family of refresh tokens, each used
-- once (a second use revokes the session). Codes and refresh tokens are
-- kept as SHA-256 hashes (hex), never themselves. Times are Unix
-- microseconds (UTC); revoked_at is 0 while the session lives.

CREATE TABLE oauth_clients (
    client_id     TEXT    NOT NULL PRIMARY KEY,
    name          TEXT    NOT NULL,
    redirect_uris TEXT    NOT NULL, -- JSON array
    created_at    INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

CREATE TABLE oauth_sessions (
    session_id     TEXT    NOT NULL PRIMARY KEY,
    subject        TEXT    NOT NULL,
    display_name   TEXT    NOT NULL,
    grants         TEXT    NOT NULL, -- JSON array
    client_id      TEXT    NOT NULL,
    client_name    TEXT    NOT NULL,
    redirect_uri   TEXT    NOT NULL,
    code_challenge TEXT    NOT NULL,
    resource       TEXT    NOT NULL,
    parent         TEXT    NOT NULL,
    parent_expires INTEGER NOT NULL,
    created_at     INTEGER NOT NULL,
    expires_at     INTEGER NOT NULL,
    last_used_at   INTEGER NOT NULL,
    code_hash      TEXT    NOT NULL UNIQUE,
    code_expires   INTEGER NOT NULL,
    code_used      INTEGER NOT NULL DEFAULT 0,
    revoked_at     INTEGER NOT NULL DEFAULT 0
) STRICT, WITHOUT ROWID;

CREATE INDEX oauth_sessions_subject ON oauth_sessions (subject, last_used_at);

CREATE TABLE oauth_refresh_tokens (
    token_hash TEXT    NOT NULL PRIMARY KEY,
    session_id TEXT    NOT NULL REFERENCES oauth_sessions (session_id) ON DELETE CASCADE,
    issued_at  INTEGER NOT NULL,
    used       INTEGER NOT NULL DEFAULT 0
) STRICT, WITHOUT ROWID;

CREATE INDEX oauth_refresh_tokens_session ON oauth_refresh_tokens (session_id);
