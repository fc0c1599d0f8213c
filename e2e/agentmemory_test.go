//go:build unix

package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/teammem/teammem/client"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/testkit/gittest"
	"github.com/teammem/teammem/testkit/proctest"
)

// TestAgentMemoryFollowsItsOwner: with personal memory on, one user's two
// machines converge on an agent type's user-scope memory
// (~/.claude/agent-memory/reviewer, found on the server by the machine
// that never ran the agent) and on a checkout's local-scope memory
// (.claude/agent-memory-local, kept out of git where the agent made it);
// project-scope agent memory stays git's; status says which is synced;
// another subject, admin of everything, reads none of it.
func TestAgentMemoryFollowsItsOwner(t *testing.T) {
	a := newWorkstation(t)
	b := a.secondMachine("dev", "acme/**:write")
	coA, _ := gittest.NewCheckout(t, "git@github.com:acme/e2e.git")
	coB, _ := gittest.NewCheckout(t, "https://github.com/acme/e2e.git")
	for _, m := range []struct {
		w  *workstation
		co string
	}{{a, coA}, {b, coB}} {
		m.w.ok(m.co, m.w.token+"\n", "login", "--server", m.w.srv.url())
		m.w.ok(m.co, "", "add", "--personal")
	}
	userA, userB := filepath.Join(a.home, ".claude", "agent-memory", "reviewer"), filepath.Join(b.home, ".claude", "agent-memory", "reviewer")
	localA, localB := filepath.Join(coA, ".claude", "agent-memory-local"), filepath.Join(coB, ".claude", "agent-memory-local")
	write(t, userA, "MEMORY.md", "- [Style](style.md) — house style\n")
	write(t, userA, "style.md", "tabs\n")
	write(t, localA, "reviewer/MEMORY.md", "- this repository's reviews go slowly\n")
	write(t, filepath.Join(coA, ".claude", "agent-memory", "planner"), "MEMORY.md", "checked in with the project\n")
	run := func(w *workstation) *proc {
		p := w.agent(w.home, "", "run", "--debounce", "200ms", "--max-delay", "1s", "--poll", "1s")
		t.Cleanup(func() { p.stop(t, syscall.SIGTERM) })
		return p
	}
	runA := run(a)
	defer func() {
		if t.Failed() {
			t.Logf("run A:\n%s", runA.stderr)
		}
	}()
	proctest.WaitFor(t, "machine A's agent memories on the server", func() bool {
		return a.srv.entries("~/.agent-memory/reviewer")["style.md"] == "tabs\n" &&
			a.srv.entries("~/.agent-memory-local/acme/e2e")["reviewer/MEMORY.md"] != ""
	})
	runB := run(b)
	defer func() {
		if t.Failed() {
			t.Logf("run B:\n%s", runB.stderr)
		}
	}()
	proctest.WaitFor(t, "machine B to get both", func() bool {
		return read(userB, "style.md") == "tabs\n" && read(localB, "reviewer/MEMORY.md") == "- this repository's reviews go slowly\n"
	})
	write(t, userB, "style.md", "tabs, four wide\n")
	write(t, localB, "reviewer/flaky.md", "the deploy test is flaky\n")
	proctest.WaitFor(t, "machine A to get machine B's edits", func() bool {
		return read(userA, "style.md") == "tabs, four wide\n" && read(localA, "reviewer/flaky.md") == "the deploy test is flaky\n"
	})

	if st := gittest.Run(t, coB, "status", "--porcelain"); strings.Contains(st, "agent-memory") {
		t.Errorf("git sees the local agent memory the agent made:\n%s", st)
	}
	mine, err := client.New(client.Options{BaseURL: a.srv.url(), Token: a.token})
	if err != nil {
		t.Fatal(err)
	}
	repos, err := mine.Repos(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range repos.Repos {
		if strings.Contains(r.Repo, "planner") {
			t.Errorf("project-scope agent memory reached the server as %s", r.Repo)
		}
	}
	var st struct {
		Checkouts []struct {
			Repo        string
			AgentMemory []struct{ Type, Scope, Synced string }
		}
	}
	if err := json.Unmarshal([]byte(b.ok(b.home, "", "status", "--json")), &st); err != nil || len(st.Checkouts) == 0 {
		t.Fatalf("status --json: %v", err)
	}
	synced := map[string]string{}
	for _, m := range st.Checkouts[0].AgentMemory {
		synced[m.Type+" "+m.Scope] = m.Synced
	}
	if synced["reviewer user"] != "~/.agent-memory/reviewer" || synced["reviewer local"] != "~/.agent-memory-local/acme/e2e" {
		t.Errorf("status of machine B's agent memory: %v", st.Checkouts[0].AgentMemory)
	}
	if out := a.ok(coA, "", "status"); !strings.Contains(out, `agent mem: "planner" (project): in the repository: git's`) {
		t.Errorf("status on machine A does not say project scope is git's:\n%s", out)
	}

	admin := issue(t, a.srv.dataDir, "root", "**:admin")
	other, err := client.New(client.Options{BaseURL: a.srv.url(), Token: admin})
	if err != nil {
		t.Fatal(err)
	}
	for _, repo := range []string{server.PersonalRepo("dev", ".agent-memory/reviewer"), server.PersonalRepo("dev", ".agent-memory-local/acme/e2e")} {
		if _, err := other.Get(context.Background(), repo, client.GetOptions{}); !errors.Is(err, client.ErrForbidden) {
			t.Errorf("another subject reading %s: %v; want 403", repo, err)
		}
	}
	if _, err := other.Get(context.Background(), "~/.agent-memory/reviewer", client.GetOptions{}); !errors.Is(err, client.ErrNotFound) {
		t.Errorf("another subject's own ~/.agent-memory/reviewer: %v; want 404 (its own, empty)", err)
	}
}
