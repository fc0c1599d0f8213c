package refcheck

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// MaxHistory is how many first-parent commits back from HEAD are searched
// for the commit that removed a missing path.
const MaxHistory = 500

// renameLimit bounds git's rename detection in one commit (added × deleted
// files compared).
const renameLimit = 200

// historyKey names a history search: a path as of a HEAD.
type historyKey struct {
	head plumbing.Hash
	path string
}

// gone is what the history says of a missing path; since is zero when the
// removal was not found.
type gone struct {
	since     plumbing.Hash
	renamedTo string
}

// explainMissing fills Since and RenamedTo of the missing-path findings
// from one walk of first-parent history, at most MaxHistory commits, that
// stops once every path is explained. Results are remembered by (HEAD,
// path).
func (c *Checker) explainMissing(ctx context.Context, head plumbing.Hash, findings []Finding) error {
	var missing []*Finding
	for i := range findings {
		if findings[i].Reason == ReasonMissing {
			missing = append(missing, &findings[i])
		}
	}
	todo := map[string]bool{}
	for _, f := range missing {
		if _, ok := c.history[historyKey{head, f.Ref.Path}]; !ok {
			todo[f.Ref.Path] = true
		}
	}
	if len(todo) > 0 {
		if err := c.walkHistory(ctx, head, todo); err != nil {
			return err
		}
	}
	for _, f := range missing {
		g := c.history[historyKey{head, f.Ref.Path}]
		if g.since.IsZero() {
			continue
		}
		f.Since, f.RenamedTo = g.since.String(), g.renamedTo
		f.Message = fmt.Sprintf("%s is not in HEAD (removed in %s)", f.Ref.Path, g.since.String()[:12])
		if g.renamedTo != "" {
			f.Message = fmt.Sprintf("%s is not in HEAD (renamed to %s in %s)", f.Ref.Path, g.renamedTo, g.since.String()[:12])
		}
	}
	return nil
}

// walkHistory walks from head towards the root commit along first parents
// and records, for each path of todo, the newest commit whose parent holds
// it (the commit that removed it). Paths not found are recorded as gone
// with no commit.
func (c *Checker) walkHistory(ctx context.Context, head plumbing.Hash, todo map[string]bool) error {
	commit, err := c.repo.CommitObject(head)
	if err != nil {
		return fmt.Errorf("check references: history: %w", err)
	}
	for n := 0; n < MaxHistory && len(todo) > 0 && commit.NumParents() > 0; n++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		parent, err := commit.Parent(0)
		if err != nil {
			if errors.Is(err, plumbing.ErrObjectNotFound) {
				break // a shallow clone ends here
			}
			return fmt.Errorf("check references: history: %w", err)
		}
		ptree, err := parent.Tree()
		if err != nil {
			return fmt.Errorf("check references: history: %w", err)
		}
		var removed []string
		for p := range todo {
			if _, err := ptree.FindEntry(p); err == nil {
				removed = append(removed, p)
			}
		}
		if len(removed) > 0 {
			if err := c.recordRemoval(ctx, head, commit, ptree, removed); err != nil {
				return err
			}
			for _, p := range removed {
				delete(todo, p)
			}
		}
		commit = parent
	}
	for p := range todo {
		c.history[historyKey{head, p}] = gone{}
	}
	return nil
}

// recordRemoval records that commit removed paths (present in its parent's
// tree ptree), with the new path of each that git's rename detection pairs.
func (c *Checker) recordRemoval(ctx context.Context, head plumbing.Hash, commit *object.Commit, ptree *object.Tree, paths []string) error {
	tree, err := commit.Tree()
	if err != nil {
		return fmt.Errorf("check references: history: %w", err)
	}
	renamed := map[string]string{}
	changes, err := object.DiffTreeWithOptions(ctx, ptree, tree, &object.DiffTreeOptions{
		DetectRenames: true, RenameScore: 60, RenameLimit: renameLimit})
	switch {
	case err == nil:
		for _, ch := range changes {
			if ch.From.Name != "" && ch.To.Name != "" && ch.From.Name != ch.To.Name {
				renamed[ch.From.Name] = ch.To.Name
			}
		}
	case ctx.Err() != nil:
		return ctx.Err()
	}
	// Any other diff error leaves the renames unknown; the removal stands.
	for _, p := range paths {
		c.history[historyKey{head, p}] = gone{since: commit.Hash, renamedTo: renamed[p]}
	}
	return nil
}
