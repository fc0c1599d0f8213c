ALTER TABLE proposal_changes DROP COLUMN note;
