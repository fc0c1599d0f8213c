DROP TABLE proposal_changes;
DROP TABLE proposals;
DROP TABLE review_policies;
ALTER TABLE versions DROP COLUMN proposal;
ALTER TABLE versions DROP COLUMN approved_by;
