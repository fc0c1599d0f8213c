package teamblock

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/teammem/teammem/client/assistants"
	"github.com/teammem/teammem/client/gitremote"
)

// Checkouts returns the checkouts that get repo's block: the git
// working tree at dir and every other existing worktree of its repository.
// It returns none when dir is not in a git working tree, or when the
// checkout may belong to another repository: unless trusted (the caller
// named dir explicitly, or found the team folder from it), its remote's
// slug must be repo.
func Checkouts(dir, repo string, trusted bool) ([]string, error) {
	root, err := gitremote.FindRepo(dir)
	if errors.Is(err, gitremote.ErrNotRepo) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if !trusted {
		if slug, err := gitremote.Slug(root); err != nil || slug != repo {
			return nil, nil
		}
	}
	co, err := gitremote.OpenCheckout(root)
	if err != nil {
		return nil, err
	}
	roots, err := co.Worktrees()
	if err != nil {
		return nil, err
	}
	if !slices.ContainsFunc(roots, func(r string) bool { return sameDir(r, root) }) {
		roots = append([]string{root}, roots...)
	}
	return roots, nil
}

// Nested reports whether co lies inside another of checkouts.
func Nested(co string, checkouts []string) bool {
	return slices.ContainsFunc(checkouts, func(other string) bool {
		rel, err := filepath.Rel(other, co)
		return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
	})
}

// sameDir reports whether two paths name the same folder.
func sameDir(a, b string) bool {
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}

// RemoveRepoBlocks takes the block out of every worktree of the
// repository at path when it stops being synced: unless one of its
// worktrees is among synced (checkouts still synced, whose engine keeps
// the block in all of them), which it then returns as keptBy. It returns
// the checkouts where a target's file changed (every target is looked at,
// whichever were chosen). A path that is gone or not
// in a git working tree has nothing to remove.
func RemoveRepoBlocks(path string, synced []string) (removed []string, keptBy string, err error) {
	if _, err := os.Stat(path); err != nil {
		return nil, "", nil
	}
	roots, err := Checkouts(path, "", true)
	if err != nil {
		return nil, "", err
	}
	for _, s := range synced {
		if slices.ContainsFunc(roots, func(r string) bool { return sameDir(r, s) }) {
			return nil, s, nil
		}
	}
	var errs []error
	for _, co := range roots {
		changed := false
		for _, t := range assistants.All {
			did, err := Remove(co, t)
			errs = append(errs, err)
			changed = changed || did
		}
		if changed {
			removed = append(removed, co)
		}
	}
	return removed, "", errors.Join(errs...)
}
