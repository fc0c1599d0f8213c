-- Web UI sessions signed out before they expire. The session itself lives
-- in the browser's sealed cookie; a sign-out records its id here so that a
-- copy of the cookie is refused too, by every replica (each reads this
-- table on every page, uncached). A row is kept until the session would
-- have expired (expires_at), then removed by the next sign-out.

CREATE TABLE ended_sessions (
    session_id text COLLATE "C" NOT NULL PRIMARY KEY,
    expires_at timestamptz      NOT NULL,
    ended_at   timestamptz      NOT NULL
);

CREATE INDEX ended_sessions_expiry ON ended_sessions (expires_at);
