-- A proposed change may say why it is proposed (a tidy's "folded into
-- pool.md", "archived: ..."): the note is shown with the change, so the
-- history of a key deleted by an approved proposal, which names the
-- proposal, leads to why. '' when none was given.
ALTER TABLE proposal_changes ADD COLUMN note TEXT NOT NULL DEFAULT '';
