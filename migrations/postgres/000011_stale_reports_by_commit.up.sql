-- Stale-reference reports by commit: each reporter's report of an entry at
-- each commit it checked, so that a report from an older checkout no
-- longer replaces the one of a newer commit (the server ranks them, see
-- server/staleverdict.go; the store keeps 20 an entry). committed_at is
-- the commit's committer time as the reporter's agent read it (NULL when
-- the agent did not say, as before this migration), branch the branch its
-- checkout was on ('' unknown).

ALTER TABLE stale_reports
    ADD COLUMN committed_at timestamptz,
    ADD COLUMN branch       text NOT NULL DEFAULT '',
    DROP CONSTRAINT stale_reports_pkey,
    ADD PRIMARY KEY (repo, key, commit_id, reporter);
