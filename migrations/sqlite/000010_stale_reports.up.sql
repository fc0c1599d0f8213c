-- The latest stale-reference report of each entry: an agent checked the
-- code references of the entry's content at version against its
-- checkout's commit, and found findings (a JSON array of {reference, line,
-- reason, since, renamedTo}; empty when every reference held). reporter is
-- the token subject that sent it. Times are Unix microseconds (UTC).

CREATE TABLE stale_reports (
    repo        TEXT    NOT NULL,
    key         TEXT    NOT NULL,
    version     INTEGER NOT NULL,
    commit_id   TEXT    NOT NULL,
    reporter    TEXT    NOT NULL,
    reported_at INTEGER NOT NULL,
    findings    TEXT    NOT NULL,
    PRIMARY KEY (repo, key)
) STRICT, WITHOUT ROWID;
