-- Sign-ins with the organisation's identity provider (server.SignInStore),
-- shared by every replica: one row per sign-in, holding the provider's
-- refresh token sealed under the server's secret (never the token
-- itself), the grants the claim mapping gave at the provider's last
-- answer and when that was. The web session the sign-in started and the
-- OAuth sessions consented from it (oauth_sessions.parent =
-- 'signin:' || signin_id) share it; the row is locked while the provider
-- is asked again, so two replicas never spend one refresh token.

CREATE TABLE oauth_signins (
    signin_id      text COLLATE "C" NOT NULL PRIMARY KEY,
    subject        text             NOT NULL,
    grants         jsonb            NOT NULL,
    refresh_sealed bytea            NOT NULL,
    checked_at     timestamptz      NOT NULL,
    web_expires    timestamptz      NOT NULL,
    created_at     timestamptz      NOT NULL
);

CREATE INDEX oauth_sessions_parent ON oauth_sessions (parent);

-- Why the server ended a session (a replayed token, the provider's
-- refusal); '' while it lives or when a person ended it. Ended sessions
-- are listed for a while beside the live ones.
ALTER TABLE oauth_sessions ADD COLUMN ended_why text NOT NULL DEFAULT '';
