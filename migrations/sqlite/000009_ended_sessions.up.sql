-- Web UI sessions signed out before they expire. The session itself lives
-- in the browser's sealed cookie; a sign-out records its id here so that a
-- copy of the cookie is refused too. A row is kept until the session would
-- have expired (expires_at), then removed by the next sign-out. Times are
-- Unix microseconds (UTC).

CREATE TABLE ended_sessions (
    session_id TEXT    NOT NULL PRIMARY KEY,
    expires_at INTEGER NOT NULL,
    ended_at   INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

CREATE INDEX ended_sessions_expiry ON ended_sessions (expires_at);
