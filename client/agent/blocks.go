package agent

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/teammem/teammem/client/assistants"
	"github.com/teammem/teammem/client/teamblock"
	"github.com/teammem/teammem/memcore"
)

// BlockConfig says which checkouts get the team memory block, and in
// which assistants' files.
type BlockConfig struct {
	// Checkouts lists the top folders of the git working trees of the
	// repo (each worktree included) that hold the block. It is called
	// after every cycle, so that a worktree added while the agent runs
	// gets the block too; nil means no block.
	Checkouts func() ([]string, error)
	// Targets says which assistants' files of a checkout hold the block;
	// the block is taken out of the others. Nil: Claude Code's only.
	Targets func(checkout string) []assistants.Assistant
	// MCP reports whether an assistant has the teammem MCP server, so that
	// its block names the search_memories tool; nil: none has. It is asked
	// when the block is rendered.
	MCP func(assistants.Assistant) bool
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
	// last is the block last put in place and where names the files it
	// was put in; a cycle that renders the same text for the same files
	// touches no file.
	last  blockTexts
	where []string
	// mcp is, by target name, whether the last render was for an
	// assistant with the MCP server.
	mcp map[string]bool
	// roots are the checkouts of the last update.
	roots []string
	// unreadable is the engine's unreadable at the last update (said once).
	unreadable bool
	// failed are the files whose last update failed, with the reason, so
	// that a warning is given once per reason, not every cycle.
	failed map[string]string
	// renders counts the renders (for tests).
	renders int
}

// updateBlocks renders the block from the team folder and writes it to
// every chosen target of every checkout where it changed, and takes it out
// of the other targets (of all of them when configured so); what cannot be
// done is said in r.Block, once per file and reason.
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
	var text blockTexts
	mcp := b.mcp
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
		mcp = map[string]bool{}
		anyMCP := false
		for _, t := range assistants.All {
			mcp[t.Name] = b.cfg.MCP != nil && b.cfg.MCP(t)
			anyMCP = anyMCP || mcp[t.Name]
		}
		text = e.renderBlock(ctx, roots, anyMCP)
	}
	var where []string
	wants := map[string]string{}
	for _, co := range roots {
		chosen := []assistants.Assistant{assistants.Claude}
		if b.cfg.Targets != nil {
			chosen = b.cfg.Targets(co)
		}
		for _, t := range assistants.All {
			want := text.forTarget(t, mcp)
			switch {
			case b.cfg.Remove || !slices.ContainsFunc(chosen, func(c assistants.Assistant) bool { return c.Name == t.Name }):
				want = ""
			case t.Name == assistants.Claude.Name && teamblock.Nested(co, roots):
				// A worktree inside another checkout (Claude Code's own
				// .claude/worktrees/<name>) gets the block from that
				// checkout's CLAUDE.local.md, which Claude Code loads
				// there too: a second copy would only double it in the
				// prompt. The other assistants stop at the worktree's
				// own top.
				want = ""
			}
			key := co + "\x00" + t.Name
			wants[key] = want
			if want != "" {
				where = append(where, key)
			}
		}
	}
	// When the same text went into the same files without a failure, each
	// file is only read to check that the block is still as written (a
	// person or a tool may have taken it out): git is not consulted and
	// nothing is written unless it was.
	same := text == b.last && slices.Equal(where, b.where) && b.failed != nil && len(b.failed) == 0
	failed := map[string]string{}
	for _, co := range roots {
		for _, t := range assistants.All {
			want := wants[co+"\x00"+t.Name]
			// A target without a block is only looked at (no git index
			// read) when it has none to take out.
			if (same || want == "") && teamblock.Current(co, t, want) {
				continue
			}
			var err error
			if want == "" {
				_, err = teamblock.Remove(co, t)
			} else {
				_, err = teamblock.Write(co, t, want)
			}
			if err == nil {
				continue
			}
			key := co + "\x00" + t.Name
			failed[key] = err.Error()
			if b.failed[key] != err.Error() {
				msg := fmt.Sprintf("team memory block left out of %s (%s): %v", filepath.Join(co, filepath.FromSlash(t.File)), t.Product, err)
				if fix := teamblock.Fix(t, err); fix != "" {
					msg += "; to fix: " + fix
				}
				r.Block = append(r.Block, msg)
			}
		}
	}
	b.last, b.mcp, b.where, b.roots, b.failed = text, mcp, where, roots, failed
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
// is too old, ends with a warning. The text for an assistant with the MCP
// server is rendered only withMCP (else it is the plain one).
func (e *Engine) renderBlock(ctx context.Context, roots []string, withMCP bool) blockTexts {
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
	in := teamblock.Input{Repo: e.cfg.Repo, TeamDir: e.cfg.Dir, Index: string(index), Exists: exists, Refused: e.withheld, Stale: stale}
	texts := blockTexts{plain: teamblock.Render(in).Text}
	texts.mcp = texts.plain
	if withMCP {
		in.MCP = true
		texts.mcp = teamblock.Render(in).Text
	}
	return texts
}

// blockTexts are the block's two renderings: for an assistant without and
// with the teammem MCP server (whose guidance names search_memories).
type blockTexts struct{ plain, mcp string }

// forTarget is the text for t; "" stays "" (no block).
func (b blockTexts) forTarget(t assistants.Assistant, mcp map[string]bool) string {
	if mcp[t.Name] {
		return b.mcp
	}
	return b.plain
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
