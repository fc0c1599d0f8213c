package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/teammem/teammem/client/userconfig"
	memsession "github.com/teammem/teammem/memcore/session"
)

// TestAgentMemorySync: which agent memories sync, with which repository,
// and why the others do not.
func TestAgentMemorySync(t *testing.T) {
	for _, tc := range []struct {
		name                  string
		m                     memsession.AgentMemory
		slug                  string
		personalAny, personal bool
		repo                  string
	}{
		{"user scope, personal on somewhere", memsession.AgentMemory{Type: "reviewer", Scope: memsession.AgentScopeUser}, "acme/api", true, false, "~/.agent-memory/reviewer"},
		{"user scope, personal off", memsession.AgentMemory{Type: "reviewer", Scope: memsession.AgentScopeUser}, "acme/api", false, false, ""},
		{"user scope, a name the server would fold", memsession.AgentMemory{Type: "Reviewer", Scope: memsession.AgentScopeUser}, "acme/api", true, true, ""},
		{"local scope, this checkout's personal memory on", memsession.AgentMemory{Type: "reviewer", Scope: memsession.AgentScopeLocal}, "acme/api", true, true, "~/.agent-memory-local/acme/api"},
		{"local scope, off for this checkout", memsession.AgentMemory{Type: "reviewer", Scope: memsession.AgentScopeLocal}, "acme/api", true, false, ""},
		{"local scope, no room in the name", memsession.AgentMemory{Type: "reviewer", Scope: memsession.AgentScopeLocal}, "a/b/c/d/e/f/g/h", true, true, ""},
		{"project scope", memsession.AgentMemory{Type: "planner", Scope: memsession.AgentScopeProject}, "acme/api", true, true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo, how := agentMemorySync(tc.m, tc.slug, tc.personalAny, tc.personal)
			if repo != tc.repo || how == "" {
				t.Errorf("agentMemorySync = %q, %q; want %q and a reason", repo, how, tc.repo)
			}
		})
	}
}

// TestAgentMemFolders: with personal memory on, the user-scope type
// folders with a wire name and each personal checkout's local-scope folder
// that exists; nothing with it off. No server is reachable: what is on this
// machine decides.
func TestAgentMemFolders(t *testing.T) {
	home, co, bare := t.TempDir(), t.TempDir(), t.TempDir()
	for _, d := range []string{
		filepath.Join(home, ".claude", "agent-memory", "reviewer"),
		filepath.Join(home, ".claude", "agent-memory", "Upper"),
		filepath.Join(co, ".claude", "agent-memory-local", "reviewer"),
	} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	e := &cliEnv{Home: home, Cwd: home, Getenv: func(string) string { return "" }, Stdout: os.Stdout, Stderr: os.Stderr}
	a := &agentMemSync{e: e, c: commonFlags{server: "http://127.0.0.1:1", logLevel: "error"}}
	checkouts := []personalCheckout{{path: co, slug: "acme/api"}, {path: bare, slug: "acme/web"}}
	got := a.folders(userconfig.Config{Personal: true}, checkouts)
	want := []agentMemFolder{
		{repo: "~/.agent-memory/reviewer", dir: filepath.Join(home, ".claude", "agent-memory", "reviewer")},
		{repo: "~/.agent-memory-local/acme/api", dir: filepath.Join(co, ".claude", "agent-memory-local"), checkout: co},
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(agentMemFolder{})); diff != "" {
		t.Errorf("folders (-want +got):\n%s", diff)
	}
	if a.changed() {
		t.Error("changed with nothing changed")
	}
	if err := os.MkdirAll(filepath.Join(home, ".claude", "agent-memory", "tester"), 0o755); err != nil {
		t.Fatal(err)
	}
	if !a.changed() {
		t.Error("a new agent type folder is no change")
	}
	if got := a.folders(userconfig.Config{}, checkouts); got != nil {
		t.Errorf("personal memory off: %v", got)
	}
}

// TestMemoryFolderOf: the folder whose lock holds a folder's pushes.
func TestMemoryFolderOf(t *testing.T) {
	mem := filepath.Join("/home", "ana", ".claude", "projects", "-src-api", "memory")
	for dir, want := range map[string]string{
		filepath.Join(mem, "team"):     mem,
		filepath.Join("/srv", "notes"): "",
	} {
		if got := memoryFolderOf(dir, false); got != want {
			t.Errorf("memoryFolderOf(%s) = %q, want %q", dir, got, want)
		}
	}
	if got := memoryFolderOf(mem, true); got != mem {
		t.Errorf("personal: %q", got)
	}
}

// TestStatusAgentMemoryLines: status's agent memory lines on the views
// fixture say how each is synced and report a project snapshot newer than
// the one an agent memory was initialised from (§12).
func TestStatusAgentMemoryLines(t *testing.T) {
	f := viewsFixture(t)
	e := &cliEnv{Home: f.home, Cwd: f.project, Getenv: func(string) string { return "" }}
	var b strings.Builder
	printAgentMemory(&b, agentMemoryRows(e, f.project, "acme/api", userconfig.Config{Personal: true}, true))
	want := `agent mem: "planner" (project): in the repository: git's
agent mem: "reviewer" (user): synced with your personal memory (~/.agent-memory/reviewer); the project's snapshot of 2026-04-20 is newer than the one it was initialised from
agent mem: "reviewer" (local): synced with this checkout's personal memory (~/.agent-memory-local/acme/api); the project's snapshot of 2026-04-20 is newer than the one it was initialised from
agent mem: "tester" (snapshot): no memory yet: the project's snapshot can start one
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("status's agent memory lines (-want +got):\n%s", diff)
	}
}
