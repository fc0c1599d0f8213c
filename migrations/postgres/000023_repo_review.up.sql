-- A repository's review policy also sits on its row of repos, where every
-- write already locks and reads (the write path's guard, server.Write's
-- Policy): a write checks the policy it was cut by with no query of its
-- own. review_policies stays the record (when it was set); a trigger
-- copies each policy set there onto repos, in the same transaction, so no
-- process sets one without the other (a replica of an older build
-- included). Setting a policy on a repository never written gives it a
-- version-0 row, as a write's lock does (reads skip version 0).

ALTER TABLE repos ADD COLUMN review text NOT NULL DEFAULT 'off'
    CHECK (review IN ('off', 'changes', 'all'));

CREATE FUNCTION review_policy_to_repo() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    -- Updating the row takes its lock: a write holding it commits first
    -- (under the policy it checked), and one waiting for it re-reads the
    -- row once this transaction commits, so it checks the new policy.
    INSERT INTO repos (slug, checksum, updated_at, review)
    VALUES (NEW.repo, 'sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855', NEW.set_at, NEW.review)
    ON CONFLICT (slug) DO UPDATE SET review = excluded.review;
    RETURN NULL;
END $$;

CREATE TRIGGER review_policy_to_repo AFTER INSERT OR UPDATE ON review_policies
    FOR EACH ROW EXECUTE FUNCTION review_policy_to_repo();

INSERT INTO repos (slug, checksum, updated_at, review)
SELECT repo, 'sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855', set_at, review
FROM review_policies
ON CONFLICT (slug) DO UPDATE SET review = excluded.review;
