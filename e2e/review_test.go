//go:build unix

package e2e

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/client"
	"github.com/teammem/teammem/testkit/gittest"
	"github.com/teammem/teammem/testkit/proctest"
)

// TestReviewWithRealAgents: in a repository reviewing changes, ana's agent
// turns her edit of a topic into a proposal: her file keeps her text, no
// conflict copy is made, her agent and `status` say "awaiting review
// (#1)", and ben's folder and the server keep the reviewed text. Approved,
// both machines converge on it. Her next edit, rejected with a comment,
// comes back as the reviewed text with hers kept beside it, headed by the
// comment, in a file `status` names; a reviewer's approval of a proposal
// whose base moved merges.
func TestReviewWithRealAgents(t *testing.T) {
	srv := startAuthServer(t)
	ctx := context.Background()
	ana, ben := srv.token(t, "ana", repo+":write"), srv.token(t, "ben", repo+":write")
	const one = "# DB\n\nUse MySQL.\n\nPools of 10.\n"
	reviewChanges(t, srv, one)
	anaCo, _ := gittest.NewCheckout(t, "git@github.com:"+repo+".git")
	benCo, _ := gittest.NewCheckout(t, "git@github.com:"+repo+".git")
	a := startAgentAs(t, srv, ana, t.TempDir(), anaCo)
	b := startAgentAs(t, srv, ben, t.TempDir(), benCo)
	for _, dir := range []string{a.dir, b.dir} {
		waitFile(t, dir, "db.md", one)
	}
	open := func(want int) []api.Proposal {
		t.Helper()
		var list *api.Proposals
		proctest.WaitFor(t, "open proposals", func() bool {
			var err error
			list, err = srv.api.Proposals(ctx, client.ProposalOptions{Repo: repo, State: "open"})
			return err == nil && len(list.Proposals) == want
		})
		return list.Proposals
	}

	const anas = "# DB\n\nUse Postgres.\n\nPools of 10.\n"
	write(t, a.dir, "db.md", anas)
	p := open(1)[0]
	if p.Author != "ana" || strings.Join(p.Keys, ",") != "db.md" {
		t.Fatalf("proposal %+v", p)
	}
	proctest.WaitFor(t, "ana's agent to say awaiting review", func() bool {
		return strings.Contains(a.stdout.String(), `"awaiting":[{"path":"db.md","proposal":1}]`)
	})
	time.Sleep(2 * time.Second) // a few cycles: nothing may move
	if out := statusAs(t, srv, ana, a); !strings.Contains(out, `"db.md": awaiting review (#1)`) {
		t.Errorf("ana's status while the proposal is open:\n%s", out)
	}
	if got := read(a.dir, "db.md"); got != anas || conflictCopiesIn(t, a.dir) != 0 {
		t.Errorf("ana's folder while the proposal is open: db.md %q, %d conflict copies", got, conflictCopiesIn(t, a.dir))
	}
	if got := read(b.dir, "db.md"); got != one || srv.entries(repo)["db.md"] != one {
		t.Errorf("ben's folder or the server while the proposal is open: %q", got)
	}
	if _, err := srv.api.Decide(ctx, p.ID, "approve", "ok"); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{a.dir, b.dir} {
		waitFile(t, dir, "db.md", anas)
	}

	const again = "# DB\n\nUse Postgres 16.\n\nPools of 10.\n"
	write(t, a.dir, "db.md", again)
	p = open(1)[0]
	if _, err := srv.api.Decide(ctx, p.ID, "reject", "stay on 15 until the upgrade"); err != nil {
		t.Fatal(err)
	}
	waitFile(t, a.dir, "db.md", anas)
	kept := "db" + ".conflict-rejected-2.md"
	proctest.WaitFor(t, "ana's text kept beside the reviewed one", func() bool { return strings.Contains(read(a.dir, kept), again) })
	if got := read(a.dir, kept); !strings.Contains(got, "stay on 15 until the upgrade") || !strings.Contains(got, "rejected by admin") {
		t.Errorf("the kept copy: %q", got)
	}
	time.Sleep(2 * time.Second)
	if out := statusAs(t, srv, ana, a); !strings.Contains(out, `"`+kept+`" (your text of a rejected proposal`) || strings.Contains(out, "awaiting review") {
		t.Errorf("ana's status after the rejection:\n%s", out)
	}
	if open(0); srv.entries(repo)["db.md"] != anas || read(b.dir, "db.md") != anas {
		t.Errorf("after the rejection: server %q, ben %q", srv.entries(repo)["db.md"], read(b.dir, "db.md"))
	}

	// A proposal whose base moved: ben's edit of the last line while
	// ana's edit of the first waits; approving merges both.
	write(t, a.dir, "db.md", "# Database\n\nUse Postgres.\n\nPools of 10.\n")
	p = open(1)[0]
	if _, err := srv.api.Put(ctx, repo, api.PutRequest{Entries: map[string]string{"db.md": "# DB\n\nUse Postgres.\n\nPools of 20.\n"}}, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.api.Decide(ctx, p.ID, "approve", ""); err != nil {
		t.Fatal(err)
	}
	const merged = "# Database\n\nUse Postgres.\n\nPools of 20.\n"
	for _, dir := range []string{a.dir, b.dir} {
		waitFile(t, dir, "db.md", merged)
	}
	if n := conflictCopiesIn(t, a.dir); n != 1 {
		t.Errorf("%d conflict copies in ana's folder; want only the rejected text's", n)
	}
}

// TestRejectionArrivesByStream: an agent that polls only hourly learns of
// its proposal's rejection from the events stream (the rejection writes
// no version, so no change event tells it): the reviewed text comes back
// and the author's is kept beside it within seconds.
func TestRejectionArrivesByStream(t *testing.T) {
	srv := startAuthServer(t)
	ctx := context.Background()
	ana := srv.token(t, "ana", repo+":write")
	const one = "# DB\n\nUse MySQL.\n"
	reviewChanges(t, srv, one)
	co, _ := gittest.NewCheckout(t, "git@github.com:"+repo+".git")
	a := startAgentAs(t, srv, ana, t.TempDir(), co, "--poll", "1h", "--safety-poll", "1h")
	waitFile(t, a.dir, "db.md", one)
	write(t, a.dir, "db.md", "# DB\n\nUse Postgres.\n")
	proctest.WaitFor(t, "ana's agent to say awaiting review", func() bool {
		return strings.Contains(a.stdout.String(), `"awaiting":[{"path":"db.md","proposal":1}]`)
	})
	if _, err := srv.api.Decide(ctx, 1, "reject", "not yet"); err != nil {
		t.Fatal(err)
	}
	waitFile(t, a.dir, "db.md", one)
	if got := read(a.dir, "db"+".conflict-rejected-1.md"); !strings.Contains(got, "Use Postgres.") {
		t.Errorf("ana's text beside the reviewed one: %q", got)
	}
}

// reviewChanges writes db.md as the admin, then has the repository review
// changes.
func reviewChanges(t *testing.T, srv *authServer, db string) {
	t.Helper()
	ctx := context.Background()
	if _, err := srv.api.Put(ctx, repo, api.PutRequest{Entries: map[string]string{"db.md": db}}, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.api.SetPolicy(ctx, repo, api.ReviewChanges); err != nil {
		t.Fatal(err)
	}
}

// statusAs runs `teammem-agent status` (the text a person reads) for a's
// folder and state with token, and returns what it printed.
func statusAs(t *testing.T, srv *authServer, token string, a *agentProc) string {
	t.Helper()
	p := startProcWith(t, func(c *exec.Cmd) { c.Env = append(c.Env, "TEAMMEM_TOKEN="+token) }, agentBin,
		"status", "--server", srv.url(), "--repo", repo, "--dir", a.dir, "--state-dir", a.state)
	p.wait()
	if code := p.cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("status exited %d: %s", code, p.stderr)
	}
	return p.stdout.String()
}

// conflictCopiesIn counts the conflict copies in dir.
func conflictCopiesIn(t *testing.T, dir string) int {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "*.conflict-*"))
	if err != nil {
		t.Fatal(err)
	}
	return len(m)
}
