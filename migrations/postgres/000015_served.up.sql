-- What was served to whom (server.ServedLog): one row per subject,
-- repository, surface, version, hour window (window_start) and replica;
-- each replica saves its open rows again as they grow. keys are the
-- entries an MCP read or search returned.

CREATE TABLE served (
    subject      text        NOT NULL COLLATE "C",
    repo         text        NOT NULL COLLATE "C",
    surface      text        NOT NULL,
    version      bigint      NOT NULL,
    window_start timestamptz NOT NULL,
    replica      text        NOT NULL,
    first_at     timestamptz NOT NULL,
    last_at      timestamptz NOT NULL,
    count        bigint      NOT NULL,
    keys         text[]      NOT NULL,
    PRIMARY KEY (subject, repo, surface, version, window_start, replica)
);

CREATE INDEX served_first ON served (subject, repo, first_at);
CREATE INDEX served_last ON served (last_at);
