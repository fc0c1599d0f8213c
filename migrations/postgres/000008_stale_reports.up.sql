-- The latest stale-reference report of each entry: an agent checked the
-- code references of the entry's content at version against its
-- checkout's commit, and found findings (a JSON array of {reference, line,
-- reason, since, renamedTo}; empty when every reference held). reporter is
-- the token subject that sent it.

CREATE TABLE stale_reports (
    repo        text COLLATE "C" NOT NULL,
    key         text COLLATE "C" NOT NULL,
    version     bigint           NOT NULL,
    commit_id   text             NOT NULL,
    reporter    text             NOT NULL,
    reported_at timestamptz      NOT NULL,
    findings    jsonb            NOT NULL,
    PRIMARY KEY (repo, key)
);
