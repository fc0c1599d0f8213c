ALTER TABLE proposals DROP COLUMN whole;
ALTER TABLE proposal_changes DROP COLUMN note;
