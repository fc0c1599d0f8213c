-- Snapshots without content (the hashes probe, a pull's metadata) read one
-- covering index instead of the entries' rows, which hold the content. It
-- also serves Snapshot with since (a scan of the repository's keys), so the
-- (repo, version) index goes; the folded-key index goes too: case-fold
-- collisions are checked in memory against the live set, and neither index
-- was read by any query, only maintained on every write.

CREATE INDEX entries_repo_meta ON entries (repo, key, checksum, size, version, updated_at, deleted, deleted_at);
DROP INDEX entries_repo_version;
DROP INDEX entries_repo_folded_live;
