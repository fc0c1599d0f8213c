package agent

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/teammem/teammem/client/gitremote"
	"github.com/teammem/teammem/client/teamblock"
	"github.com/teammem/teammem/memcore"
)

// BlockConfig says which checkouts get the team memory block.
type BlockConfig struct {
	// Checkouts lists the top folders of the git working trees of the
	// repo (each worktree included) whose CLAUDE.local.md holds the block.
	// It is called after every cycle, so that a worktree added while the
	// agent runs gets the block too; nil means no block.
	Checkouts func() ([]string, error)
	// Remove takes the block out of the checkouts instead (--no-inject).
	Remove bool
	// StaleAfter, when positive, marks the index lines of topics nobody
	// changed or confirmed for longer (--stale-after).
	StaleAfter time.Duration
	// Hold, when set, is held around each update of the blocks, the
	// listing of Checkouts included (LockBlocks).
	Hold func() (release func(), err error)
}

// StaticCheckouts is a BlockConfig.Checkouts that always lists roots.
func StaticCheckouts(roots ...string) func() ([]string, error) {
	return func() ([]string, error) { return roots, nil }
}

// blocks keeps the team memory block of the engine's checkouts up to
// date. It is owned by the engine's goroutine.
type blocks struct {
	cfg BlockConfig
	// last is the block last put in place and roots the checkouts it was
	// put in; a cycle that renders the same text for the same checkouts
	// touches no file.
	last  string
	roots []string
	// unreadable is the engine's unreadable at the last update (said once).
	unreadable bool
	// failed are the checkouts whose last update failed, with the reason,
	// so that a warning is given once per reason, not every cycle.
	failed map[string]string
	// renders counts the renders (for tests).
	renders int
}

// updateBlocks renders the block from the team folder and writes it to
// every checkout where it changed, or removes it when configured so; what
// cannot be done is said in r.Block, once per checkout and reason.
func (e *Engine) updateBlocks(ctx context.Context, r *Report) {
	b := &e.blocks
	if b.cfg.Checkouts == nil {
		return
	}
	if b.cfg.Hold != nil {
		release, err := b.cfg.Hold()
		if err != nil {
			r.Block = append(r.Block, fmt.Sprintf("team memory block: %v", err))
			return
		}
		defer release()
	}
	roots, err := b.cfg.Checkouts()
	if err != nil {
		if b.failed[""] != err.Error() {
			r.Block = append(r.Block, fmt.Sprintf("team memory block: cannot list the checkouts: %v", err))
		}
		b.failed = map[string]string{"": err.Error()}
		return
	}
	text := ""
	said := b.unreadable
	b.unreadable = e.unreadable
	if e.unreadable && !said {
		r.Block = append(r.Block, fmt.Sprintf("team memory block kept out of the checkouts: the server refuses this token the repository %s", e.cfg.Repo))
	}
	switch {
	case b.cfg.Remove, e.unreadable: // no block rather than one saying nobody shared anything
	case said == e.unreadable && e.blockUnchanged(roots):
		text = b.last
	default:
		text = e.renderBlock(ctx, roots)
	}
	// When the same text went into the same checkouts without a failure,
	// each file is only read to check that the block is still as written
	// (a person or a tool may have taken it out): git is not consulted
	// and nothing is written unless it was.
	same := text == b.last && slices.Equal(roots, b.roots) && b.failed != nil && len(b.failed) == 0
	failed := map[string]string{}
	for _, co := range roots {
		want := text
		if text == "" || nestedCheckout(co, roots) {
			// A worktree inside another checkout (Claude Code's own
			// .claude/worktrees/<name>) gets the block from that
			// checkout's CLAUDE.local.md, which loads there too: a second
			// copy would only double it in the prompt.
			want = ""
		}
		if same && blockCurrent(co, want) {
			continue
		}
		var err error
		if want == "" {
			_, err = RemoveBlock(co)
		} else {
			_, err = WriteBlock(co, want)
		}
		if err == nil {
			continue
		}
		failed[co] = err.Error()
		if b.failed[co] != err.Error() {
			msg := fmt.Sprintf("team memory block left out of %s: %v", filepath.Join(co, LocalMdName), err)
			if fix := LocalMdFix(err); fix != "" {
				msg += "; to fix: " + fix
			}
			r.Block = append(r.Block, msg)
		}
	}
	b.last, b.roots, b.failed = text, roots, failed
}

// blockUnchanged reports whether the block last rendered for roots is still
// what a render would give, without rendering it: the cycle was idle (the
// server's view and the folder are as before, so the index, the topics and
// what the agent withholds are too), the checkouts are the same, HEAD has
// not moved and no topic's age is due to be looked at again. An idle agent
// then neither lists nor reads the team folder for its block.
func (e *Engine) blockUnchanged(roots []string) bool {
	b := &e.blocks
	if !e.idle || b.failed == nil || !slices.Equal(roots, b.roots) {
		return false
	}
	return len(roots) == 0 || !e.staleDue(roots[0])
}

// renderBlock renders the block from the team folder's index. A link to a
// file the agent does not share (a credential in it, not UTF-8, too large,
// refused by the server, not a regular file) is left out. An index line
// whose topic names code that the first checkout's HEAD does not hold, or
// is too old, ends with a warning.
func (e *Engine) renderBlock(ctx context.Context, roots []string) string {
	e.blocks.renders++
	index, err := memcore.SafeRead(e.cfg.Dir, teamblock.IndexKey)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		index = nil // unreadable: shown as empty rather than guessed
	}
	root, rootErr := os.OpenRoot(e.cfg.Dir)
	if rootErr == nil {
		defer root.Close()
	}
	exists := func(key string) bool {
		if rootErr != nil {
			return false
		}
		fi, err := root.Lstat(filepath.FromSlash(key))
		return err == nil && fi.Mode().IsRegular()
	}
	var stale func(string) teamblock.Stale
	if len(roots) > 0 {
		stale = e.staleInfo(ctx, roots[0])
	}
	return teamblock.Render(teamblock.Input{Repo: e.cfg.Repo, TeamDir: e.cfg.Dir, Index: string(index),
		Exists: exists, Refused: e.withheld, Stale: stale}).Text
}

// withheld reports whether the agent does not share key: the server
// refused it, or the last scan (or, for a file changed since or never
// scanned, a check now) found it may not be pushed.
func (e *Engine) withheld(key string) bool {
	if _, ok := e.refusedKeys[key]; ok {
		return true
	}
	if s, ok := e.local.files[key]; ok && !e.local.dirty[key] {
		return s.skip != nil
	}
	data, err := memcore.SafeRead(e.cfg.Dir, key)
	if err != nil {
		return !errors.Is(err, fs.ErrNotExist)
	}
	return CheckEntry(key, data, e.local.maxBytes()) != nil
}

// BlockCheckouts returns the checkouts that get repo's block: the git
// working tree at dir and every other existing worktree of its repository.
// It returns none when dir is not in a git working tree, or when the
// checkout may belong to another repository: unless trusted (the caller
// named dir explicitly, or found the team folder from it), its remote's
// slug must be repo.
func BlockCheckouts(dir, repo string, trusted bool) ([]string, error) {
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

// nestedCheckout reports whether co lies inside another of checkouts.
func nestedCheckout(co string, checkouts []string) bool {
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
// the checkouts whose CLAUDE.local.md changed. A path that is gone or not
// in a git working tree has nothing to remove.
func RemoveRepoBlocks(path string, synced []string) (removed []string, keptBy string, err error) {
	if _, err := os.Stat(path); err != nil {
		return nil, "", nil
	}
	roots, err := BlockCheckouts(path, "", true)
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
		changed, err := RemoveBlock(co)
		if err != nil && !errors.Is(err, ErrLocalMdTracked) {
			errs = append(errs, err)
		}
		if changed {
			removed = append(removed, co)
		}
	}
	return removed, "", errors.Join(errs...)
}
