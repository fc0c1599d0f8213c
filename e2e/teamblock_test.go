//go:build unix

package e2e

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/teammem/teammem/memcore/protocol"
	"github.com/teammem/teammem/memcore/secrets/secretstest"
	"github.com/teammem/teammem/testkit/gittest"
	"github.com/teammem/teammem/testkit/proctest"
)

// The team memory block: what the teammate's model sees of team memory
// (no Claude Code version reads the team folder on its own).
const (
	blockBegin = "<!-- teammem:begin -->"
	blockEnd   = "<!-- teammem:end -->"
)

// blockOf returns the block of a checkout's CLAUDE.local.md, "" when none.
func blockOf(checkout string) string { return blockIn(checkout, "CLAUDE.local.md") }

// blockIn returns the block of a checkout's file, "" when none.
func blockIn(checkout, file string) string {
	s := read(checkout, file)
	i, j := strings.Index(s, blockBegin), strings.Index(s, blockEnd)
	if i < 0 || j < i {
		return ""
	}
	return s[i : j+len(blockEnd)]
}

// blockLinks returns the destinations of the links in text, read as every
// surface reads links.
func blockLinks(text string) []string {
	var dests []string
	for _, line := range strings.Split(text, "\n") {
		for _, l := range protocol.Links(line) {
			dests = append(dests, l.Dest)
		}
	}
	return dests
}

func TestTeamBlockReachesTeammate(t *testing.T) {
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	aCheckout, _ := gittest.NewCheckout(t, "git@github.com:"+repo+".git")
	bCheckout, bWorktree := gittest.NewCheckout(t, "git@github.com:"+repo+".git")
	own := "# My own notes\n\nRun the tests with -race.\n" // B's text, never touched
	write(t, bCheckout, "CLAUDE.local.md", own)
	a := startAgent(t, srv, t.TempDir(), t.TempDir(), "--repo-dir", aCheckout)
	b := startAgent(t, srv, t.TempDir(), t.TempDir(), "--repo-dir", bCheckout)

	// Teammate A adds a topic and its index line.
	topic := "---\nname: deploys\ndescription: how we deploy\ntype: project\n---\nRun make deploy from main only.\n"
	write(t, a.dir, "deploys.md", topic)
	write(t, a.dir, "MEMORY.md", "- [Deploys](deploys.md) — deploy runbook\n")
	want := "- [Deploys](" + b.dir + "/deploys.md) — deploy runbook"
	for _, co := range []string{bCheckout, bWorktree} {
		proctest.WaitFor(t, "the deploys line in "+co, func() bool { return strings.Contains(blockOf(co), want) })
	}
	block := blockOf(bCheckout)
	_, index, _ := strings.Cut(block, "## Team index")
	links := blockLinks(index)
	if len(links) != 1 || read(links[0], "") != topic {
		t.Errorf("the block's link does not open the synced topic file: %q\n%s", links, block)
	}
	if got := read(bCheckout, "CLAUDE.local.md"); !strings.HasSuffix(got, blockEnd+"\n"+own) {
		t.Errorf("B's own text is not kept byte for byte after the block:\n%s", got)
	}
	if !strings.Contains(block, "team folder `"+b.dir+"/`") {
		t.Errorf("the guidance does not name the team folder:\n%s", block)
	}
	for _, co := range []string{aCheckout, bCheckout, bWorktree} {
		if st := gittest.Run(t, co, "status", "--porcelain"); st != "" {
			t.Errorf("git status in %s is not clean:\n%s", co, st)
		}
	}

	// What the model sees: the block, without its markers, as part of
	// CLAUDE.local.md; the team folder itself is not loaded.
	code, prompt := runMemory(t, "prompt", "--cwd", bCheckout, "--home", t.TempDir())
	out := prompt.stdout.String()
	if code != 0 || !strings.Contains(out, "(user's private project instructions, not checked in):\n\n# Team memory of "+repo) ||
		!strings.Contains(out, want) || !strings.Contains(out, "Run the tests with -race.") || strings.Contains(out, "teammem:begin") {
		t.Errorf("memory prompt (exit %d):\n%s\n%s", code, out, prompt.stderr)
	}

	// A file A refused to push (a credential) never shows, at A's or B's.
	write(t, a.dir, "keys.md", "token "+secretstest.GitHubToken()+"\n")
	write(t, a.dir, "MEMORY.md", "- [Deploys](deploys.md) — deploy runbook, v2\n- [Keys](keys.md) — where the keys are\n")
	for _, co := range []string{aCheckout, bCheckout} {
		proctest.WaitFor(t, "the new index in "+co, func() bool { return strings.Contains(blockOf(co), "runbook, v2") })
	}
	// Its index line is held back with it: kept in A's index, never sent
	// to B (no dead link at any teammate's), said once by A's agent.
	if got := read(b.dir, "MEMORY.md"); strings.Contains(got, "Keys") {
		t.Errorf("the index line of the refused file reached B:\n%s", got)
	}
	if !strings.Contains(read(a.dir, "MEMORY.md"), "Keys") {
		t.Error("A's own index lost the line held back")
	}
	proctest.WaitFor(t, "A saying the line is held back", func() bool {
		return strings.Count(a.stdout.String(), "index lines held back") == 1
	})
	for _, co := range []string{aCheckout, bCheckout} {
		if strings.Contains(blockOf(co), "Keys") || strings.Contains(blockOf(co), "keys.md") {
			t.Errorf("the refused file shows in %s's block:\n%s", co, blockOf(co))
		}
	}

	// A 300-line index is cut to the budget, with the warning.
	var idx strings.Builder
	for i := 1; i <= 300; i++ {
		fmt.Fprintf(&idx, "- [Deploys %d](deploys.md) — runbook, part %d\n", i, i)
	}
	write(t, a.dir, "MEMORY.md", idx.String())
	proctest.WaitFor(t, "the cut index at B", func() bool { return strings.Contains(blockOf(bCheckout), "> WARNING: ") })
	block = blockOf(bCheckout)
	if n := strings.Count(block, "\n- [Deploys "); n > 200 || n < 150 || !strings.Contains(block, "is over both the line limit (200)") {
		t.Errorf("cut index: %d lines kept:\n%s", n, block[strings.Index(block, "> WARNING"):])
	}

	// --no-inject takes the block out: B's file is B's text again, the
	// worktree's file (the agent's own) is gone.
	for _, ag := range []*agentProc{a, b} {
		if code := ag.stop(t, syscall.SIGTERM); code != 0 {
			t.Fatalf("agent exit %d:\n%s", code, ag.stderr)
		}
	}
	if code, p := runAgent(t, srv, b.dir, b.state, "sync", "--repo-dir", bCheckout, "--no-inject"); code != 0 {
		t.Fatalf("sync --no-inject exit %d:\n%s", code, p.stderr)
	}
	if got := read(bCheckout, "CLAUDE.local.md"); got != own {
		t.Errorf("after --no-inject B's file is %q, want %q", got, own)
	}
	if got := read(bWorktree, "CLAUDE.local.md"); got != absent {
		t.Errorf("after --no-inject the worktree's file is %q", got)
	}
	if st := gittest.Run(t, bCheckout, "status", "--porcelain"); st != "" {
		t.Errorf("git status after removal:\n%s", st)
	}

	// Removing A's checkout from sync takes its block out too.
	if blockOf(aCheckout) == "" {
		t.Fatal("A's checkout has no block to remove")
	}
	config := []string{"XDG_CONFIG_HOME=" + t.TempDir()}
	for _, cmd := range []string{"add", "remove"} {
		if code, p := runAgentEnv(t, config, cmd, aCheckout); code != 0 {
			t.Fatalf("%s exit %d:\n%s\n%s", cmd, code, p.stdout, p.stderr)
		}
	}
	if got := read(aCheckout, "CLAUDE.local.md"); got != absent {
		t.Errorf("after remove A's CLAUDE.local.md is %q", got)
	}
}

// runAgentEnv runs teammem-agent with args and extra environment to
// completion.
func runAgentEnv(t *testing.T, env []string, args ...string) (int, *proc) {
	t.Helper()
	p := startProcWith(t, func(cmd *exec.Cmd) { cmd.Env = append(cmd.Env, env...) }, agentBin, args...)
	p.wait()
	return p.cmd.ProcessState.ExitCode(), p
}

func TestTeamBlockLeavesTrackedLocalMdAlone(t *testing.T) {
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	checkout, _ := gittest.NewCheckout(t, "git@github.com:"+repo+".git")
	committed := "Shared by mistake.\n"
	write(t, checkout, "CLAUDE.local.md", committed)
	gittest.Run(t, checkout, "add", "CLAUDE.local.md")
	gittest.Run(t, checkout, "commit", "-q", "-m", "track CLAUDE.local.md")
	dir, state := t.TempDir(), t.TempDir()
	write(t, dir, "MEMORY.md", "- [A](a.md) — a\n")
	write(t, dir, "a.md", "a\n")
	code, p := runAgent(t, srv, dir, state, "sync", "--repo-dir", checkout)
	if code != 0 {
		t.Fatalf("sync exit %d:\n%s", code, p.stderr)
	}
	var rep struct{ Warnings, Block []string }
	if err := json.Unmarshal([]byte(p.stdout.String()), &rep); err != nil || len(rep.Warnings) != 0 || len(rep.Block) != 1 ||
		!strings.Contains(rep.Block[0], "tracked by git") || !strings.Contains(rep.Block[0], "git rm --cached CLAUDE.local.md") {
		t.Errorf("want one block warning with the fix (%v): %s", err, p.stdout)
	}
	if got := read(checkout, "CLAUDE.local.md"); got != committed {
		t.Errorf("the tracked file changed: %q", got)
	}
	if st := gittest.Run(t, checkout, "status", "--porcelain"); st != "" {
		t.Errorf("git status:\n%s", st)
	}
	code, p = runAgent(t, srv, dir, state, "status", "--repo-dir", checkout, "--assistants", "claude")
	var st struct {
		TeamBlock []struct{ Checkout, State, Fix string } `json:"teamBlock"`
	}
	if err := json.Unmarshal([]byte(p.stdout.String()), &st); code != 0 || err != nil || len(st.TeamBlock) != 2 ||
		!strings.Contains(st.TeamBlock[0].State, "tracked by git") || !strings.Contains(st.TeamBlock[0].Fix, "git rm --cached") {
		t.Errorf("status (exit %d, %v): %s", code, err, p.stdout)
	}
}

// runMemory runs `teammem-agent memory ARGS` to completion.
func runMemory(t *testing.T, args ...string) (int, *proc) {
	t.Helper()
	p := startProc(t, agentBin, append([]string{"memory"}, args...)...)
	p.wait()
	return p.cmd.ProcessState.ExitCode(), p
}
