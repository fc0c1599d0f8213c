DROP TRIGGER review_policy_to_repo ON review_policies;
DROP FUNCTION review_policy_to_repo();
ALTER TABLE repos DROP COLUMN review;
