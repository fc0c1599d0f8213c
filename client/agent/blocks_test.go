package agent

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/teammem/teammem/client/assistants"
	"github.com/teammem/teammem/client/teamblock"
	"github.com/teammem/teammem/memcore/secrets/secretstest"
	"github.com/teammem/teammem/testkit/gittest"
)

const testBlock = teamblock.Begin + "\n# Team memory\n\n- [A](/t/a.md)\n" + teamblock.End + "\n"

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestEngineKeepsCheckoutBlocks(t *testing.T) {
	main, linked := gittest.NewCheckout(t, "")
	user := "my own line\n"
	os.WriteFile(filepath.Join(main, assistants.Claude.File), []byte(user), 0o644)
	token := secretstest.GitHubToken()
	server := map[string]string{
		"MEMORY.md":  "- [Deploys](deploys.md) — deploy runbook\n- [Keys](keys.md) — where the keys are\n",
		"deploys.md": "---\nname: deploys\n---\nrun make deploy\n",
	}
	local := map[string]string{"keys.md": "token " + token + "\n"} // never pushed, never in the block
	r := newRig(t, server, local, func(c *Config) { c.Block = BlockConfig{Checkouts: StaticCheckouts(main, linked)} })
	rep := r.sync(t)
	dir := filepath.ToSlash(r.dir)
	for _, co := range []string{main, linked} {
		got := readFile(t, filepath.Join(co, assistants.Claude.File))
		if !strings.Contains(got, "- [Deploys]("+dir+"/deploys.md) — deploy runbook") {
			t.Errorf("%s: block lacks the deploys link:\n%s", co, got)
		}
		if strings.Contains(got, "keys.md") || strings.Contains(got, "Keys") {
			t.Errorf("%s: the refused file shows in the block:\n%s", co, got)
		}
		if st := gittest.Run(t, co, "status", "--porcelain"); st != "" {
			t.Errorf("git status in %s:\n%s", co, st)
		}
	}
	if got := readFile(t, filepath.Join(main, assistants.Claude.File)); !strings.HasSuffix(got, "\n"+user) {
		t.Errorf("the user's text is not kept after the block:\n%s", got)
	}
	if len(rep.Warnings)+len(rep.Block) != 0 {
		t.Errorf("warnings %v, block %v", rep.Warnings, rep.Block)
	}

	// A local edit of the index reaches the block at the next cycle; a
	// cycle that changes nothing writes nothing.
	path := filepath.Join(linked, assistants.Claude.File)
	old := time.Now().Add(-time.Hour)
	os.Chtimes(path, old, old)
	r.sync(t)
	if fi, _ := os.Stat(path); !fi.ModTime().Equal(old) {
		t.Error("a cycle with the same index rewrote CLAUDE.local.md")
	}
	// A block someone took out is put back at the next cycle, the rest
	// of the file kept; so is a deleted file.
	os.WriteFile(filepath.Join(main, assistants.Claude.File), []byte(user), 0o644)
	os.Remove(path)
	r.sync(t)
	for _, p := range []string{filepath.Join(main, assistants.Claude.File), path} {
		if got := readFile(t, p); !strings.Contains(got, "[Deploys]("+dir+"/deploys.md)") || (p != path && !strings.HasSuffix(got, "\n"+user)) {
			t.Errorf("%s after the block was taken out and a cycle ran:\n%s", p, got)
		}
	}
	os.WriteFile(filepath.Join(r.dir, "MEMORY.md"), []byte(server["MEMORY.md"]+"- [Oncall](oncall.md) — who\n"), 0o644)
	os.WriteFile(filepath.Join(r.dir, "oncall.md"), []byte("ana\n"), 0o644)
	r.sync(t)
	if got := readFile(t, path); !strings.Contains(got, "[Oncall]("+dir+"/oncall.md)") {
		t.Errorf("the local index change did not reach the block:\n%s", got)
	}

	// --no-inject takes the blocks out again.
	e := r.newEngine(t, func(c *Config) { c.Block = BlockConfig{Checkouts: StaticCheckouts(main, linked), Remove: true} })
	if _, err := e.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(main, assistants.Claude.File)); got != user {
		t.Errorf("after removal: %q, want %q", got, user)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("the file the agent created is still there: %v", err)
	}
}

func TestEngineWarnsOnceForTrackedLocalMd(t *testing.T) {
	main, _ := gittest.NewCheckout(t, "")
	os.WriteFile(filepath.Join(main, assistants.Claude.File), []byte("committed\n"), 0o644)
	gittest.Run(t, main, "add", assistants.Claude.File)
	r := newRig(t, map[string]string{"MEMORY.md": "- [A](a.md) — a\n", "a.md": "a\n"}, nil,
		func(c *Config) { c.Block = BlockConfig{Checkouts: StaticCheckouts(main)} })
	first := r.sync(t)
	if len(first.Block) != 1 || !strings.Contains(first.Block[0], "tracked by git") ||
		!strings.Contains(first.Block[0], "git rm --cached") || len(first.Warnings) != 0 {
		t.Fatalf("first cycle: block %q, warnings %q", first.Block, first.Warnings)
	}
	os.WriteFile(filepath.Join(r.dir, "MEMORY.md"), []byte("- [A](a.md) — changed\n"), 0o644)
	if again := r.sync(t); len(again.Block) != 0 {
		t.Errorf("warned again: %q", again.Block)
	}
	if got := readFile(t, filepath.Join(main, assistants.Claude.File)); got != "committed\n" {
		t.Errorf("tracked file changed: %q", got)
	}
}

func TestEngineSkipsNestedWorktree(t *testing.T) {
	main, _ := gittest.NewCheckout(t, "")
	nested := filepath.Join(main, ".claude", "worktrees", "fix")
	gittest.Run(t, main, "worktree", "add", "-q", "-b", "fix", nested)
	os.WriteFile(filepath.Join(nested, assistants.Claude.File), []byte("nested notes\n"+testBlock), 0o644) // an old copy
	roots, err := teamblock.Checkouts(nested, testRepo, true)
	if err != nil || len(roots) != 3 {
		t.Fatalf("BlockCheckouts = %v, %v", roots, err)
	}
	r := newRig(t, map[string]string{"MEMORY.md": "- [A](a.md) — a\n", "a.md": "a\n"}, nil,
		func(c *Config) { c.Block = BlockConfig{Checkouts: StaticCheckouts(roots...)} })
	r.sync(t)
	if got := readFile(t, filepath.Join(main, assistants.Claude.File)); !strings.Contains(got, "[A](") {
		t.Errorf("main checkout's block:\n%s", got)
	}
	if got := readFile(t, filepath.Join(nested, assistants.Claude.File)); got != "nested notes\n" {
		t.Errorf("the nested worktree keeps a block of its own: %q", got)
	}
	if st := gittest.Run(t, nested, "status", "--porcelain"); st != "" {
		t.Errorf("git status in the nested worktree:\n%s", st)
	}
}

func TestEngineFindsNewWorktree(t *testing.T) {
	main, _ := gittest.NewCheckout(t, "")
	list := func() ([]string, error) { return teamblock.Checkouts(main, testRepo, true) }
	r := newRig(t, map[string]string{"MEMORY.md": "- [A](a.md) — a\n", "a.md": "a\n"}, nil,
		func(c *Config) { c.Block = BlockConfig{Checkouts: list} })
	r.sync(t)
	added := filepath.Join(filepath.Dir(main), "api-later")
	gittest.Run(t, main, "worktree", "add", "-q", "-b", "later", added)
	r.sync(t) // the same index: only the new worktree is written
	if got := readFile(t, filepath.Join(added, assistants.Claude.File)); !strings.Contains(got, "[A](") {
		t.Errorf("a worktree added while syncing got no block:\n%s", got)
	}
}

// TestEngineKeepsEveryChosenTarget: the engine writes the block into each
// chosen assistant's file, and takes it out of a target no longer chosen,
// restoring the checkout.
func TestEngineKeepsEveryChosenTarget(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	main, _ := gittest.NewCheckout(t, "")
	before := gittest.Tree(t, main)
	chosen := []assistants.Assistant{assistants.Claude, assistants.Codex, assistants.Cursor}
	cfg := func(c *Config) {
		c.Block = BlockConfig{Checkouts: StaticCheckouts(main), Targets: func(string) []assistants.Assistant { return chosen },
			MCP: func(t assistants.Assistant) bool { return t.Name == "codex" }}
	}
	r := newRig(t, map[string]string{"MEMORY.md": "- [A](a.md) — the a line\n", "a.md": "a\n"}, nil, cfg)
	if rep := r.sync(t); len(rep.Block) != 0 {
		t.Fatalf("block report %q", rep.Block)
	}
	for _, f := range []string{"CLAUDE.local.md", "AGENTS.override.md", ".cursor/rules/teammem.mdc"} {
		if got := readFile(t, filepath.Join(main, f)); !strings.Contains(got, "the a line") {
			t.Errorf("%s:\n%s", f, got)
		}
	}
	if _, err := os.Stat(filepath.Join(main, "GEMINI.md")); !os.IsNotExist(err) {
		t.Errorf("an assistant not chosen got a file: %v", err)
	}
	if !strings.Contains(readFile(t, filepath.Join(main, "AGENTS.override.md")), "search_memories") ||
		strings.Contains(readFile(t, filepath.Join(main, "CLAUDE.local.md")), "search_memories") {
		t.Error("search_memories is named for exactly the assistant with the MCP server")
	}
	chosen = []assistants.Assistant{assistants.Claude}
	e := r.newEngine(t, cfg)
	if _, err := e.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(main, "AGENTS.override.md")); !os.IsNotExist(err) {
		t.Errorf("codex's file stays after codex was dropped: %v", err)
	}
	os.Remove(filepath.Join(main, "CLAUDE.local.md"))
	if after := gittest.Tree(t, main); !maps.Equal(before, after) {
		t.Errorf("checkout after the targets were dropped:\n%q\n%q", before, after)
	}
}

// TestNoInjectTakesOutExcludeLines: --no-inject takes out the block and
// the info/exclude lines the agent added, leaving the user's lines byte
// for byte; lines an earlier run left behind (no block anywhere any more)
// go at the first update after the start.
func TestNoInjectTakesOutExcludeLines(t *testing.T) {
	main, linked := gittest.NewCheckout(t, "")
	exclude := filepath.Join(main, ".git", "info", "exclude")
	user := readFile(t, exclude)
	server := map[string]string{"MEMORY.md": "- [A](a.md) — a\n", "a.md": "a\n"}
	r := newRig(t, server, nil, func(c *Config) { c.Block = BlockConfig{Checkouts: StaticCheckouts(main, linked)} })
	r.sync(t)
	if got := readFile(t, exclude); !strings.Contains(got, "/"+assistants.Claude.File+"\n") {
		t.Fatalf("info/exclude after the block went in:\n%s", got)
	}
	off := func() {
		t.Helper()
		e := r.newEngine(t, func(c *Config) { c.Block = BlockConfig{Checkouts: StaticCheckouts(main, linked), Remove: true} })
		if rep, err := e.Sync(t.Context()); err != nil || len(rep.Block) != 0 {
			t.Fatalf("sync with --no-inject: %v, %v", rep.Block, err)
		}
	}
	off()
	if got := readFile(t, exclude); got != user {
		t.Errorf("info/exclude after --no-inject:\n%q\nwant\n%q", got, user)
	}
	for _, co := range []string{main, linked} {
		if _, err := os.Stat(filepath.Join(co, assistants.Claude.File)); !os.IsNotExist(err) {
			t.Errorf("%s still holds the file the agent made: %v", co, err)
		}
	}

	// Lines an earlier version left behind, with no block anywhere.
	left := user + "# teammem-agent keeps this file in every worktree, never shared: " + assistants.Claude.File + "\n/" + assistants.Claude.File + "\n"
	os.WriteFile(exclude, []byte(left), 0o644)
	off()
	if got := readFile(t, exclude); got != user {
		t.Errorf("info/exclude with lines left by an earlier run, after a start with --no-inject:\n%q", got)
	}
}
