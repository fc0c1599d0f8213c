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
	// Watch names files outside the checkouts whose change may change
	// Targets' answers (the agent's configuration): Run looks at them,
	// with the checkouts' HEAD and the files the blocks carry, every few
	// seconds, and updates the blocks when one changed.
	Watch []string
	// Orgs are the org memories of the repository, nearest first, each
	// synced into its folder by an engine of its own: the block carries
	// their indexes after the repository's, and is rendered again within
	// seconds of a change of their folders.
	Orgs []OrgFolder
	// OrgChanged, when set, receives when an org folder may have changed
	// (its engine pulled): Run then looks at the blocks' inputs at once
	// instead of at the next inputsEvery.
	OrgChanged <-chan struct{}
}

// StaticCheckouts is a BlockConfig.Checkouts that always lists roots.
func StaticCheckouts(roots ...string) func() ([]string, error) {
	return func() ([]string, error) { return roots, nil }
}

// blockWriter keeps the team memory block of the engine's checkouts in
// step with the team folder: a subscriber of the engine's cycles, owned by
// the engine's goroutine.
type blockWriter struct {
	cfg       BlockConfig
	repo, dir string
	// refs checks the topics' code references for the block's warnings.
	refs *staleRefs
	// last is the block last put in place and where names the files it
	// was put in; a cycle that renders the same text for the same files
	// touches no file.
	last  blockTexts
	where []string
	// mcp is, by assistant name, whether the last render was for an
	// assistant with the MCP server.
	mcp map[string]bool
	// roots are the checkouts of the last update.
	roots []string
	// unreadable is the cycle's unreadable at the last update (said once).
	unreadable bool
	// failed are the files whose last update failed, with the reason, so
	// that a warning is given once per reason, not every cycle.
	failed map[string]string
	// renders counts the renders (for tests).
	renders int
	// swept says an update took the block out of every target that is to
	// have none, whatever Current said: the first after the start does, so
	// that what an earlier run left (info/exclude lines) goes too.
	swept bool
	// inputs are the files outside the team folder the last update
	// depended on, as they were before it read them.
	inputs blockInputs
	// orgIDs are the org files (orgFiles) as they were at the last render.
	orgIDs []fileID
}

// cycleDone renders the block from the team folder and writes it to every
// chosen assistant's file of every checkout where it changed, and takes it
// out of the other files (of all of them when configured so); what cannot
// be done is said in r.Block, once per file and reason.
func (b *blockWriter) cycleDone(ctx context.Context, c *cycleEnd, r *Report) {
	if c.recheck {
		b.last = blockTexts{} // check the checkouts' blocks again
	}
	if b.cfg.Hold != nil {
		release, err := b.cfg.Hold()
		if err != nil {
			b.inputs.restamp()
			r.Block = append(r.Block, fmt.Sprintf("team memory block: %v", err))
			return
		}
		defer release()
	}
	roots, err := b.cfg.Checkouts()
	if err != nil {
		b.inputs.restamp()
		if b.failed[""] != err.Error() {
			r.Block = append(r.Block, fmt.Sprintf("team memory block: cannot list the checkouts: %v", err))
		}
		b.failed = map[string]string{"": err.Error()}
		return
	}
	chosen := make(map[string][]assistants.Assistant, len(roots))
	for _, co := range roots {
		chosen[co] = chosenIn(b.cfg.Targets, co)
	}
	if b.cfg.Remove {
		b.inputs = blockInputs{} // no block: nothing it holds can change
	} else {
		b.inputs.list(slices.Concat(b.cfg.Watch, orgFiles(b.cfg.Orgs)), roots, chosen)
	}
	text, mcp := b.text(ctx, c, roots, r)
	wants, where := b.wants(roots, chosen, text, mcp)
	// When the same text went into the same files without a failure, each
	// file is only read to check that the block is still as written (a
	// person or a tool may have taken it out): git is not consulted and
	// nothing is written unless it was.
	same := text == b.last && slices.Equal(where, b.where) && b.failed != nil && len(b.failed) == 0
	b.failed = b.write(roots, wants, same, r)
	b.last, b.mcp, b.where, b.roots = text, mcp, where, roots
}

// text is the block of this cycle for roots, with the MCP server of each
// assistant it was rendered for: none when the block is turned off or the
// server refuses the repository (said once), the last one when nothing it
// shows can have changed, else a new render.
func (b *blockWriter) text(ctx context.Context, c *cycleEnd, roots []string, r *Report) (blockTexts, map[string]bool) {
	said := b.unreadable
	b.unreadable = c.unreadable
	if c.unreadable && !said {
		r.Block = append(r.Block, fmt.Sprintf("team memory block kept out of the checkouts: the server refuses this token the repository %s", b.repo))
	}
	switch {
	case b.cfg.Remove, c.unreadable: // no block rather than one saying nobody shared anything
		return blockTexts{}, b.mcp
	case said == c.unreadable && b.unchanged(c, roots):
		return b.last, b.mcp
	}
	mcp := map[string]bool{}
	anyMCP := false
	for _, a := range assistants.All {
		mcp[a.Name] = b.cfg.MCP != nil && b.cfg.MCP(a)
		anyMCP = anyMCP || mcp[a.Name]
	}
	return b.render(ctx, c, roots, anyMCP), mcp
}

// wants returns the text each assistant's file of each checkout is to
// hold, keyed by fileKey ("" for none), and the keys of those that hold
// the block, in order; chosen[co] are the assistants of checkout co.
func (b *blockWriter) wants(roots []string, chosen map[string][]assistants.Assistant, text blockTexts, mcp map[string]bool) (map[string]string, []string) {
	var where []string
	wants := map[string]string{}
	for _, co := range roots {
		for _, a := range assistants.All {
			want := text.forTarget(a, mcp)
			switch {
			case b.cfg.Remove || !slices.ContainsFunc(chosen[co], func(c assistants.Assistant) bool { return c.Name == a.Name }):
				want = ""
			case a.Name == assistants.Claude.Name && teamblock.Nested(co, roots):
				// A worktree inside another checkout (Claude Code's own
				// .claude/worktrees/<name>) gets the block from that
				// checkout's CLAUDE.local.md, which Claude Code loads
				// there too: a second copy would only double it in the
				// prompt. The other assistants stop at the worktree's
				// own top.
				want = ""
			}
			wants[fileKey(co, a)] = want
			if want != "" {
				where = append(where, fileKey(co, a))
			}
		}
	}
	return wants, where
}

// chosenIn returns the assistants whose files of checkout co hold the
// block, by BlockConfig.Targets: Claude Code's only when it is nil.
func chosenIn(targets func(checkout string) []assistants.Assistant, co string) []assistants.Assistant {
	if targets == nil {
		return []assistants.Assistant{assistants.Claude}
	}
	return targets(co)
}

// fileKey names assistant a's file in checkout co.
func fileKey(co string, a assistants.Assistant) string { return co + "\x00" + a.Name }

// write puts wants in place in every assistant's file of roots and
// returns the files it could not update, with the reason; a reason not
// given for that file at the last update is said in r. When same is set
// the files are only read to check the block is still as written.
func (b *blockWriter) write(roots []string, wants map[string]string, same bool, r *Report) map[string]string {
	failed := map[string]string{}
	for _, co := range roots {
		for _, a := range assistants.All {
			key := fileKey(co, a)
			want := wants[key]
			// A file without a block is only looked at (no git index
			// read) when it has none to take out, but on the first sweep.
			if (same || want == "" && b.swept) && teamblock.Current(co, a, want) {
				continue
			}
			var err error
			if want == "" {
				_, err = teamblock.Remove(co, a)
			} else {
				_, err = teamblock.Write(co, a, want)
			}
			if err == nil {
				continue
			}
			failed[key] = err.Error()
			if b.failed[key] != err.Error() {
				msg := fmt.Sprintf("team memory block left out of %s (%s): %v", filepath.Join(co, filepath.FromSlash(a.File)), a.Product, err)
				if fix := teamblock.Fix(a, err); fix != "" {
					msg += "; to fix: " + fix
				}
				r.Block = append(r.Block, msg)
			}
		}
	}
	b.swept = true
	return failed
}

// unchanged reports whether the block last rendered for roots is still
// what a render would give, without rendering it: the cycle was idle (the
// server's view and the folder are as before, so the index, the topics and
// what the agent withholds are too), the checkouts are the same, HEAD has
// not moved and no topic's age is due to be looked at again. An idle agent
// then neither lists nor reads the team folder for its block.
func (b *blockWriter) unchanged(c *cycleEnd, roots []string) bool {
	if !c.idle || b.failed == nil || !slices.Equal(roots, b.roots) || b.orgsChanged() {
		return false
	}
	return len(roots) == 0 || !b.refs.due(roots[0])
}

// render renders the block from the team folder's index. A link to a
// file the agent does not share (a credential in it, not UTF-8, too large,
// refused by the server, not a regular file) is left out. An index line
// whose topic names code that the first checkout's HEAD does not hold, or
// is too old, ends with a warning. The text for an assistant with the MCP
// server is rendered only withMCP (else it is the plain one).
func (b *blockWriter) render(ctx context.Context, c *cycleEnd, roots []string, withMCP bool) blockTexts {
	b.renders++
	index, err := memcore.SafeRead(b.dir, teamblock.IndexKey)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		index = nil // unreadable: shown as empty rather than guessed
	}
	root, rootErr := os.OpenRoot(b.dir)
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
		stale = b.refs.check(ctx, c, roots[0])
	}
	in := teamblock.Input{Repo: b.repo, TeamDir: b.dir, Index: string(index), Exists: exists, Refused: c.withheld, Stale: stale,
		Unsynced: c.unsynced, Orgs: b.readOrgs()}
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

// forTarget is the text for a; "" stays "" (no block).
func (b blockTexts) forTarget(a assistants.Assistant, mcp map[string]bool) string {
	if mcp[a.Name] {
		return b.mcp
	}
	return b.plain
}
