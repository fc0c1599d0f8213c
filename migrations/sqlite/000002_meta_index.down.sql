CREATE INDEX entries_repo_folded_live ON entries (repo, folded_key) WHERE deleted = 0;
CREATE INDEX entries_repo_version ON entries (repo, version);
DROP INDEX entries_repo_meta;
