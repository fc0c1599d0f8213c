//go:build unix

package e2e

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/client"
	"github.com/teammem/teammem/testkit/gittest"
	"github.com/teammem/teammem/testkit/proctest"
	"github.com/teammem/teammem/testkit/realclient"
)

// clientAs is an API client of srv with token.
func clientAs(t *testing.T, srv *serverProc, token string) *client.Client {
	t.Helper()
	c, err := client.New(client.Options{BaseURL: srv.url(), Token: token})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// putAs writes entries to repo with c, unconditionally.
func putAs(t *testing.T, c *client.Client, repo string, entries map[string]string) {
	t.Helper()
	if _, err := c.Put(context.Background(), repo, api.PutRequest{Entries: entries}, ""); err != nil {
		t.Fatalf("PUT %s: %v", repo, err)
	}
}

// TestOrgMemoryWorkstation: one agent runs two registered checkouts of
// different acme repositories; they share one synced org folder (one
// engine for acme/.memory); a teammate's edit of acme/.memory reaches
// both checkouts' blocks, Claude Code's and Codex's, within the debounce
// (the org engine follows the event stream and nudges the blocks that
// carry it); status shows the org
// memory; removing the last acme checkout stops its sync.
func TestOrgMemoryWorkstation(t *testing.T) {
	w := newWorkstation(t)
	apiCo, _ := gittest.NewCheckout(t, "git@github.com:acme/api.git")
	webCo, _ := gittest.NewCheckout(t, "https://github.com/acme/web.git")
	w.ok(apiCo, w.token+"\n", "login", "--server", w.srv.url())
	w.ok(apiCo, "", "add", "--assistants", "claude,codex")
	w.ok(webCo, "", "add", "--assistants", "claude,codex")
	orgDir := filepath.Join(w.home, ".claude", "org-memory", "acme")
	teammate := clientAs(t, w.srv, issue(t, w.srv.dataDir, "tess", "acme/.memory:write"))
	putAs(t, teammate, "acme/.memory", map[string]string{"MEMORY.md": "- [Review](review.md) — two approvals\n", "review.md": "Two.\n"})

	const debounce = 2 * time.Second // run's default
	run := w.agent(w.home, "", "run", "--debounce", debounce.String(), "--json")
	t.Cleanup(func() { run.stop(t, syscall.SIGTERM) })
	proctest.WaitFor(t, "the org memory in both checkouts' blocks", func() bool {
		return strings.Contains(blockOf(apiCo), "two approvals") && strings.Contains(blockOf(webCo), "two approvals")
	})
	if got := read(orgDir, "review.md"); got != "Two.\n" {
		t.Fatalf("org folder's review.md: %q", got)
	}
	entries, err := os.ReadDir(filepath.Dir(orgDir))
	if err != nil || len(entries) != 1 {
		t.Errorf("org-memory holds %v (%v); want the one folder of acme", entries, err)
	}

	// A teammate's edit reaches every block of both checkouts.
	start := time.Now()
	putAs(t, teammate, "acme/.memory", map[string]string{"MEMORY.md": "- [Review](review.md) — three approvals, ORG-EDIT\n"})
	files := []struct{ co, file string }{{apiCo, "CLAUDE.local.md"}, {webCo, "CLAUDE.local.md"}, {apiCo, "AGENTS.override.md"}, {webCo, "AGENTS.override.md"}}
	proctest.WaitFor(t, "the teammate's org edit in all four blocks", func() bool {
		for _, f := range files {
			if !strings.Contains(blockIn(f.co, f.file), "three approvals, ORG-EDIT") {
				return false
			}
		}
		return true
	})
	took := time.Since(start)
	t.Logf("a teammate's org edit reached four blocks of two checkouts in %v", took.Round(time.Millisecond))
	if took > debounce {
		t.Errorf("the org edit took %v to reach the blocks; want it within the debounce (%v)", took, debounce)
	}
	for _, f := range files {
		b := blockIn(f.co, f.file)
		if team, org := strings.Index(b, "## Team index"), strings.Index(b, "### Org memory of acme"); team < 0 || org < team {
			t.Errorf("%s of %s: the org memory does not follow the team index:\n%s", f.file, f.co, b)
		}
	}
	if n := len(regexp.MustCompile(`msg=syncing repo=acme/\.memory `).FindAllString(run.stderr.String(), -1)); n != 1 {
		t.Errorf("%d engines of acme/.memory started; want 1:\n%s", n, run.stderr)
	}
	if st := w.ok(apiCo, "", "status"); !strings.Contains(st, "org mem:   acme/.memory in "+orgDir+": last sync ") {
		t.Errorf("status:\n%s", st)
	}

	w.ok(w.home, "", "remove", apiCo)
	proctest.WaitFor(t, "acme/api's engine to stop", func() bool { // in the round that would stop the org memory's too
		return regexp.MustCompile(`stopped.*repo=acme/api`).MatchString(run.stderr.String())
	})
	if regexp.MustCompile(`stopped.*repo=acme/\.memory`).MatchString(run.stderr.String()) {
		t.Errorf("removing one of two acme checkouts stopped the org memory's sync:\n%s", run.stderr)
	}
	w.ok(w.home, "", "remove", webCo)
	proctest.WaitFor(t, "the org memory's engine to stop with the last acme checkout", func() bool {
		return regexp.MustCompile(`stopped.*repo=acme/\.memory`).MatchString(run.stderr.String())
	})
}

// TestOrgMemoryGrantsOverTheWire: against the real server with tokens it
// issued, a reader of acme/api alone reads acme/.memory and not acme/web;
// a reader of acme-corp/* gets nothing of acme/; a glob write grant does
// not write the org memory; a reader of a nested group's project syncs
// both its namespaces' org memories, nearest first in its block.
func TestOrgMemoryGrantsOverTheWire(t *testing.T) {
	w := newWorkstation(t)
	admin := clientAs(t, w.srv, issue(t, w.srv.dataDir, "root", "**:admin"))
	for _, r := range []string{"acme/.memory", "acme/api", "acme/web", "acme-corp/.memory", "group/.memory", "group/sub/.memory", "group/sub/proj"} {
		putAs(t, admin, r, map[string]string{"MEMORY.md": "- [Note](note.md) — note of " + r + "\n", "note.md": "x\n"})
	}
	status := func(c *client.Client, repo string) int {
		_, err := c.Get(context.Background(), repo, client.GetOptions{})
		var apiErr *client.APIError
		switch {
		case err == nil:
			return http.StatusOK
		case errors.As(err, &apiErr):
			return apiErr.Status
		}
		t.Fatalf("GET %s: %v", repo, err)
		return 0
	}
	reader := clientAs(t, w.srv, issue(t, w.srv.dataDir, "ana", "acme/api:read"))
	corp := clientAs(t, w.srv, issue(t, w.srv.dataDir, "cora", "acme-corp/*:read"))
	for _, c := range []struct {
		who  string
		c    *client.Client
		repo string
		want int
	}{
		{"acme/api reader", reader, "acme/.memory", http.StatusOK},
		{"acme/api reader", reader, "acme/web", http.StatusForbidden},
		{"acme-corp reader", corp, "acme/.memory", http.StatusForbidden},
		{"acme-corp reader", corp, "acme/api", http.StatusForbidden},
		{"acme-corp reader", corp, "acme-corp/.memory", http.StatusOK},
	} {
		if got := status(c.c, c.repo); got != c.want {
			t.Errorf("%s GET %s: %d, want %d", c.who, c.repo, got, c.want)
		}
	}
	list, err := corp.Repos(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range list.Repos {
		if strings.HasPrefix(r.Repo, "acme/") {
			t.Errorf("acme-corp reader lists %s", r.Repo)
		}
	}
	glob := clientAs(t, w.srv, issue(t, w.srv.dataDir, "gus", "acme/*:write"))
	if _, err := glob.Put(context.Background(), "acme/.memory", api.PutRequest{Entries: map[string]string{"x.md": "x\n"}}, ""); !errors.Is(err, client.ErrForbidden) {
		t.Errorf("acme/*:write PUT acme/.memory: %v; want forbidden", err)
	}

	proj, _ := gittest.NewCheckout(t, "https://gitlab.example.com/group/sub/proj.git")
	nested := issue(t, w.srv.dataDir, "nia", "group/sub/proj:write")
	w.ok(proj, nested+"\n", "login", "--server", w.srv.url())
	out := w.ok(proj, "", "sync", "--assistants", "claude")
	for _, ns := range []string{"group+sub", "group"} {
		if got := read(filepath.Join(w.home, ".claude", "org-memory", ns), "note.md"); got != "x\n" {
			t.Errorf("org folder %s: note.md %q\n%s", ns, got, out)
		}
	}
	b := blockOf(proj)
	if i, j := strings.Index(b, "note of group/sub/.memory"), strings.Index(b, "note of group/.memory"); i < 0 || j < i ||
		strings.Index(b, "note of group/sub/proj") > i {
		t.Errorf("nested block (sub at %d, group at %d):\n%s", i, j, b)
	}
}

// TestRealClaudeCodeCarriesOrgIndex: the real Claude Code, run in a
// checkout the agent synced, sends the org memory's index line in its
// first request, after the team index's.
func TestRealClaudeCodeCarriesOrgIndex(t *testing.T) {
	claude := realclient.ClaudeCodeForTest(t, realclient.ClaudeCodeNative)
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	team, org := "TEAM-"+randomHex(t), "ORG-"+randomHex(t)
	putAs(t, srv.api, repo, map[string]string{"MEMORY.md": "- [Deploys](deploys.md) — deploy runbook " + team + "\n", "deploys.md": "make deploy\n"})
	ns := repo[:strings.IndexByte(repo, '/')]
	putAs(t, srv.api, ns+"/.memory", map[string]string{"MEMORY.md": "- [Review](review.md) — review rules " + org + "\n", "review.md": "two approvals\n"})
	home := t.TempDir()
	co, _ := gittest.NewCheckout(t, "git@github.com:"+repo+".git")
	if code, p := runAgentHome(t, home, "sync", "--server", srv.url(), "--repo-dir", co, "--state-dir", t.TempDir(), "--assistants", "claude"); code != 0 {
		t.Fatalf("sync exit %d:\n%s\n%s", code, p.stdout, p.stderr)
	}
	msgs := realclient.MessagesAPI(t, "ok")
	out := claude.Print(t, realclient.Session{Dir: co, Home: home, BaseURL: msgs.URL()}, "hi")
	if out.Err != nil {
		t.Fatalf("claude -p: %v\nstdout: %s\nstderr: %s", out.Err, out.Stdout, out.Stderr)
	}
	firstRequestShows(t, msgs, "Claude Code "+claude.Version, team, org)
	body := string(msgs.Requests()[0].Body)
	if strings.Index(body, org) < strings.Index(body, team) {
		t.Error("the org index comes before the team index in the first request")
	}
}
