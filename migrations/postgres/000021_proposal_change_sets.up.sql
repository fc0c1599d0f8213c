-- A proposed change may say why it is proposed (a tidy's "folded into
-- pool.md", "archived: ..."): the note is shown with the change, so the
-- history of a key deleted by an approved proposal, which names the
-- proposal, leads to why. '' when none was given.
ALTER TABLE proposal_changes ADD COLUMN note text NOT NULL DEFAULT '';

-- A change set proposed whole (a tidy, a tool's) is never amended by its
-- author's pushes: they fold into the author's open proposal of pushes.
ALTER TABLE proposals ADD COLUMN whole boolean NOT NULL DEFAULT false;
