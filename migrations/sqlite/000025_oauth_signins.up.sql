-- Sign-ins with the organisation's identity provider (server.SignInStore):
-- one row per sign-in, holding the provider's refresh token sealed under
-- the server's secret (never the token itself), the grants the claim
-- mapping gave at the provider's last answer and when that was. The web
-- session the sign-in started and the OAuth sessions consented from it
-- (oauth_sessions.parent = 'signin:' || signin_id) share it. Times are
-- Unix microseconds (UTC).

CREATE TABLE oauth_signins (
    signin_id      TEXT    NOT NULL PRIMARY KEY,
    subject        TEXT    NOT NULL,
    grants         TEXT    NOT NULL, -- JSON array
    refresh_sealed BLOB    NOT NULL,
    checked_at     INTEGER NOT NULL,
    web_expires    INTEGER NOT NULL,
    created_at     INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

CREATE INDEX oauth_sessions_parent ON oauth_sessions (parent);

-- Why the server ended a session (a replayed token, the provider's
-- refusal); '' while it lives or when a person ended it. Ended sessions
-- are listed for a while beside the live ones.
ALTER TABLE oauth_sessions ADD COLUMN ended_why TEXT NOT NULL DEFAULT '';
