//go:build unix

package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/testkit/gittest"
	"github.com/teammem/teammem/testkit/proctest"
)

// assistantFiles are the files of every assistant, by --assistants name
// (Gemini CLI's when GEMINI.md is not tracked).
var assistantFiles = map[string]string{"claude": "CLAUDE.local.md", "codex": "AGENTS.override.md", "gemini": "GEMINI.md",
	"cursor": ".cursor/rules/teammem.mdc", "copilot": ".github/instructions/teammem.instructions.md", "windsurf": ".windsurf/rules/teammem.md"}

// hasBlock reports whether a checkout's file holds the team memory block
// with want in it.
func hasBlock(checkout, file, want string) bool {
	b := blockIn(checkout, file)
	return b != "" && strings.Contains(b, want)
}

// startIdleRun starts `teammem-agent run` on the registered checkouts with
// the default poll: once the event stream is connected the server is
// pulled only when it announces a change (and every 5 minutes), as on a
// developer's machine. It is stopped (SIGTERM) at the end of the test.
func (w *workstation) startIdleRun() *proc {
	w.t.Helper()
	run := w.agent(w.home, "", "run", "--debounce", "200ms", "--max-delay", "1s")
	w.t.Cleanup(func() { run.stop(w.t, syscall.SIGTERM) })
	return run
}

// share puts entries into repo on the server, as a teammate's push.
func (w *workstation) share(repo string, entries map[string]string) {
	w.t.Helper()
	if _, err := w.srv.api.Put(context.Background(), repo, api.PutRequest{Entries: entries}, ""); err != nil {
		w.t.Fatal(err)
	}
}

// blockStates returns status --json's block state of each file of
// checkout, by assistant.
func (w *workstation) blockStates(checkout string) map[string]string {
	w.t.Helper()
	var st struct {
		Checkouts []struct {
			TeamBlock []struct{ Checkout, Assistant, State string } `json:"teamBlock"`
		}
	}
	if err := json.Unmarshal([]byte(w.ok(w.home, "", "status", "--json")), &st); err != nil {
		w.t.Fatal(err)
	}
	out := map[string]string{}
	for _, c := range st.Checkouts {
		for _, b := range c.TeamBlock {
			if b.Checkout == checkout {
				out[b.Assistant] = b.State
			}
		}
	}
	return out
}

// TestRunningAgentFollowsAssistants: `add --assistants` on a checkout
// that a running agent syncs reaches its blocks at once: the new
// assistants' files get the block within seconds, without a restart and
// without waiting for the team to change anything, and an assistant taken
// off the list loses its block the same way.
func TestRunningAgentFollowsAssistants(t *testing.T) {
	w := newWorkstation(t)
	co := w.loggedIn("acme/one")[0]
	w.share("acme/one", map[string]string{"MEMORY.md": "- [Deploys](deploys.md) — runbook of lark-3091\n", "deploys.md": "make deploy\n"})
	run := w.startIdleRun()
	proctest.WaitFor(t, "the block in CLAUDE.local.md", func() bool { return hasBlock(co, "CLAUDE.local.md", "lark-3091") })
	time.Sleep(time.Second) // the event stream connects: no more polls

	added := time.Now()
	w.ok(co, "", "add", "--assistants", allAssistants)
	proctest.WaitFor(t, "the block in every assistant's file", func() bool {
		for _, f := range assistantFiles {
			if !hasBlock(co, f, "lark-3091") {
				return false
			}
		}
		return true
	})
	t.Logf("add --assistants reached the running agent's blocks in %v", time.Since(added).Round(10*time.Millisecond))
	for a, state := range w.blockStates(co) {
		if state != "in place" {
			t.Errorf("status: %s's block is %q", a, state)
		}
	}

	w.ok(co, "", "add", "--assistants", "codex")
	proctest.WaitFor(t, "the block out of every file but Codex's", func() bool {
		for a, f := range assistantFiles {
			if a != "codex" && read(co, f) != absent {
				return false
			}
		}
		return hasBlock(co, "AGENTS.override.md", "lark-3091")
	})
	if s := gittest.Run(t, co, "status", "--porcelain", "--untracked-files=all"); s != "" {
		t.Errorf("git status:\n%s", s)
	}
	if code := run.stop(t, syscall.SIGTERM); code != 0 {
		t.Errorf("run exit %d:\n%s", code, run.stderr)
	}
}

// TestCodexCopyFollowsAgentsMd: Codex reads AGENTS.override.md instead of
// AGENTS.md, so the copy of AGENTS.md it carries follows an edit and commit
// of AGENTS.md within seconds, with nothing changed in the team; and
// status never calls a stale copy in place.
func TestCodexCopyFollowsAgentsMd(t *testing.T) {
	w := newWorkstation(t)
	co, _ := gittest.NewCheckout(t, "git@github.com:acme/one.git")
	commit := func(text string) {
		t.Helper()
		write(t, co, "AGENTS.md", text)
		gittest.Run(t, co, "add", "AGENTS.md")
		gittest.Run(t, co, "commit", "-q", "-m", "agents")
	}
	commit("# Agents\n\nRun make check (wren-1180).\n")
	w.ok(co, w.token+"\n", "login", "--server", w.srv.url())
	w.ok(co, "", "add", "--assistants", "claude,codex")
	w.share("acme/one", map[string]string{"MEMORY.md": "- [Deploys](deploys.md) — runbook\n", "deploys.md": "make deploy\n"})
	run := w.startIdleRun()
	proctest.WaitFor(t, "the override carrying AGENTS.md", func() bool {
		return strings.Contains(read(co, "AGENTS.override.md"), "wren-1180") && hasBlock(co, "AGENTS.override.md", "runbook")
	})
	time.Sleep(time.Second) // the event stream connects: no more polls

	edited := time.Now()
	commit("# Agents\n\nRun make verify (heron-7725).\n")
	proctest.WaitFor(t, "the override carrying the edited AGENTS.md", func() bool {
		s := read(co, "AGENTS.override.md")
		return strings.Contains(s, "heron-7725") && !strings.Contains(s, "wren-1180")
	})
	t.Logf("the override followed AGENTS.md's commit in %v", time.Since(edited).Round(10*time.Millisecond))
	if st := w.blockStates(co)["codex"]; st != "in place" {
		t.Errorf("status of the current override: %q", st)
	}

	// Without an agent to catch up, status says the copy is stale.
	if code := run.stop(t, syscall.SIGTERM); code != 0 {
		t.Errorf("run exit %d:\n%s", code, run.stderr)
	}
	write(t, co, "AGENTS.md", "# Agents\n\nRun make all (ibis-5512).\n")
	if st := w.blockStates(co)["codex"]; !strings.HasPrefix(st, "out of date") {
		t.Errorf("status of an override whose copy of AGENTS.md is stale: %q", st)
	}
}

// TestStaleWarningFollowsHead: the block's stale-reference warning follows
// the checkout's HEAD within seconds of a commit, a revert and a checkout,
// with nothing changed in the team (no sync to wait for).
func TestStaleWarningFollowsHead(t *testing.T) {
	w := newWorkstation(t)
	co := w.loggedIn("acme/one")[0]
	w.share("acme/one", map[string]string{"MEMORY.md": "- [Release](release.md) — how we release\n",
		"release.md": "---\nname: release\n---\nReleases go through `scripts/release.sh`.\n"})
	run := w.startIdleRun()
	stale := "⚠ stale: `scripts/release.sh`"
	proctest.WaitFor(t, "the stale warning", func() bool { return hasBlock(co, "CLAUDE.local.md", stale) })
	time.Sleep(time.Second) // the event stream connects: no more polls

	follow := func(what string, warned bool, git ...[]string) {
		t.Helper()
		for _, args := range git {
			gittest.Run(t, co, args...)
		}
		moved := time.Now()
		proctest.WaitFor(t, "the block after "+what, func() bool {
			return hasBlock(co, "CLAUDE.local.md", "how we release") && hasBlock(co, "CLAUDE.local.md", stale) == warned
		})
		t.Logf("the block followed %s in %v", what, time.Since(moved).Round(10*time.Millisecond))
	}
	write(t, co, "scripts/release.sh", "#!/bin/sh\n")
	follow("the commit that adds the script", false, []string{"add", "scripts"}, []string{"commit", "-q", "-m", "release script"})
	follow("its revert", true, []string{"revert", "--no-edit", "HEAD"})
	follow("a checkout of the commit before", false, []string{"checkout", "-q", "HEAD~1"})
	if code := run.stop(t, syscall.SIGTERM); code != 0 {
		t.Errorf("run exit %d:\n%s", code, run.stderr)
	}
}
