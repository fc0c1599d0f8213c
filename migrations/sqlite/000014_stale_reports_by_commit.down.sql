-- Back to one report an entry: the one reported last.

CREATE TABLE stale_reports_latest (
    repo        TEXT    NOT NULL,
    key         TEXT    NOT NULL,
    version     INTEGER NOT NULL,
    commit_id   TEXT    NOT NULL,
    reporter    TEXT    NOT NULL,
    reported_at INTEGER NOT NULL,
    findings    TEXT    NOT NULL,
    PRIMARY KEY (repo, key)
) STRICT, WITHOUT ROWID;

INSERT INTO stale_reports_latest (repo, key, version, commit_id, reporter, reported_at, findings)
    SELECT repo, key, version, commit_id, reporter, reported_at, findings FROM (
        SELECT *, row_number() OVER (PARTITION BY repo, key ORDER BY reported_at DESC, commit_id, reporter) AS n
        FROM stale_reports)
    WHERE n = 1;
DROP TABLE stale_reports;
ALTER TABLE stale_reports_latest RENAME TO stale_reports;
