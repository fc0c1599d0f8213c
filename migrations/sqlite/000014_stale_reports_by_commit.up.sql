-- Stale-reference reports by commit: each reporter's report of an entry at
-- each commit it checked, so that a report from an older checkout no
-- longer replaces the one of a newer commit (the server ranks them, see
-- server/staleverdict.go; the store keeps 20 an entry). committed_at is
-- the commit's committer time as the reporter's agent read it (Unix
-- microseconds, UTC; NULL when the agent did not say, as before this
-- migration), branch the branch its checkout was on ('' unknown).

CREATE TABLE stale_reports_by_commit (
    repo         TEXT    NOT NULL,
    key          TEXT    NOT NULL,
    commit_id    TEXT    NOT NULL,
    reporter     TEXT    NOT NULL,
    version      INTEGER NOT NULL,
    committed_at INTEGER,
    branch       TEXT    NOT NULL DEFAULT '',
    reported_at  INTEGER NOT NULL,
    findings     TEXT    NOT NULL,
    PRIMARY KEY (repo, key, commit_id, reporter)
) STRICT, WITHOUT ROWID;

INSERT INTO stale_reports_by_commit (repo, key, commit_id, reporter, version, reported_at, findings)
    SELECT repo, key, commit_id, reporter, version, reported_at, findings FROM stale_reports;
DROP TABLE stale_reports;
ALTER TABLE stale_reports_by_commit RENAME TO stale_reports;
