-- Back to one report an entry: the one reported last.

DELETE FROM stale_reports s WHERE EXISTS (
    SELECT 1 FROM stale_reports t WHERE t.repo = s.repo AND t.key = s.key
        AND (t.reported_at > s.reported_at OR (t.reported_at = s.reported_at
            AND (t.commit_id, t.reporter) < (s.commit_id, s.reporter))));
ALTER TABLE stale_reports
    DROP CONSTRAINT stale_reports_pkey,
    ADD PRIMARY KEY (repo, key),
    DROP COLUMN committed_at,
    DROP COLUMN branch;
