-- Provenance of every version: who wrote it and through what, stamped by
-- the server (server.Provenance). A write's provenance is the same for
-- every key it changed, so it is kept once per version, beside the
-- version's checksum, and read by joining a revision to its version.
-- The author stays in revisions. Versions written before this migration
-- say 'unknown' where nothing was recorded (credential, surface, client);
-- a version without a row at all (written before migration 4) reads the
-- same.

ALTER TABLE versions ADD COLUMN display_name TEXT NOT NULL DEFAULT '';
ALTER TABLE versions ADD COLUMN credential   TEXT NOT NULL DEFAULT 'unknown';
ALTER TABLE versions ADD COLUMN surface      TEXT NOT NULL DEFAULT 'unknown';
ALTER TABLE versions ADD COLUMN client       TEXT NOT NULL DEFAULT 'unknown';
ALTER TABLE versions ADD COLUMN machine      TEXT NOT NULL DEFAULT '';
ALTER TABLE versions ADD COLUMN head_commit  TEXT NOT NULL DEFAULT '';
