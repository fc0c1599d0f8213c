-- The OAuth authorization server's state (server.OAuthStore), shared by
-- every replica. Clients registered by Dynamic Client Registration; one
-- row per consented session, which holds its authorization code's hash
-- until the code is exchanged and then lives on as a family of refresh
-- tokens, each used once (a second use revokes the session). Codes and
-- refresh tokens are kept as SHA-256 hashes (hex), never themselves.

CREATE TABLE oauth_clients (
    client_id     text COLLATE "C" NOT NULL PRIMARY KEY,
    name          text             NOT NULL,
    redirect_uris jsonb            NOT NULL,
    created_at    timestamptz      NOT NULL
);

CREATE TABLE oauth_sessions (
    session_id     text COLLATE "C" NOT NULL PRIMARY KEY,
    subject        text             NOT NULL,
    display_name   text             NOT NULL,
    grants         jsonb            NOT NULL,
    client_id      text             NOT NULL,
    client_name    text             NOT NULL,
    redirect_uri   text             NOT NULL,
    code_challenge text             NOT NULL,
    resource       text             NOT NULL,
    parent         text             NOT NULL,
    parent_expires timestamptz      NOT NULL,
    created_at     timestamptz      NOT NULL,
    expires_at     timestamptz      NOT NULL,
    last_used_at   timestamptz      NOT NULL,
    code_hash      text COLLATE "C" NOT NULL UNIQUE,
    code_expires   timestamptz      NOT NULL,
    code_used      boolean          NOT NULL DEFAULT false,
    revoked_at     timestamptz
);

CREATE INDEX oauth_sessions_subject ON oauth_sessions (subject, last_used_at);

CREATE TABLE oauth_refresh_tokens (
    token_hash text COLLATE "C" NOT NULL PRIMARY KEY,
    session_id text COLLATE "C" NOT NULL REFERENCES oauth_sessions (session_id) ON DELETE CASCADE,
    issued_at  timestamptz      NOT NULL,
    used       boolean          NOT NULL DEFAULT false
);

CREATE INDEX oauth_refresh_tokens_session ON oauth_refresh_tokens (session_id);
