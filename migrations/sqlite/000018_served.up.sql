-- What was served to whom (server.ServedLog): one row per subject,
-- repository, surface, version, hour window (window_start) and replica;
-- each replica saves its open rows again as they grow. keys are the
-- entries an MCP read or search returned, one per line. Times are Unix
-- microseconds.

CREATE TABLE served (
    subject      TEXT    NOT NULL,
    repo         TEXT    NOT NULL,
    surface      TEXT    NOT NULL,
    version      INTEGER NOT NULL,
    window_start INTEGER NOT NULL,
    replica      TEXT    NOT NULL,
    first_at     INTEGER NOT NULL,
    last_at      INTEGER NOT NULL,
    count        INTEGER NOT NULL,
    keys         TEXT    NOT NULL,
    PRIMARY KEY (subject, repo, surface, version, window_start, replica)
) STRICT, WITHOUT ROWID;

CREATE INDEX served_first ON served (subject, repo, first_at);
CREATE INDEX served_last ON served (last_at);
