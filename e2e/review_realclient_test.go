//go:build unix

package e2e

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/client"
	"github.com/teammem/teammem/memcore"
	"github.com/teammem/teammem/testkit/gittest"
	"github.com/teammem/teammem/testkit/proctest"
	"github.com/teammem/teammem/testkit/realclient"
)

// TestRealClientWritesUnderReview: the stock Claude Code (2.1.112 cli.js),
// syncing its own team folder with the real server in a repository that
// reviews changes, edits a topic and adds one: the new topic lands, the
// edit becomes one proposal, every push is answered 200 (a 4xx would stop
// its sync for the session), a second edit amends that proposal instead
// of making another, and the client pushes each edit once, never in a
// loop. A later session pulls the reviewed text and pushes nothing.
func TestRealClientWritesUnderReview(t *testing.T) {
	claude := realclient.ClaudeCodeForTest(t, realclient.ClaudeCodeNode)
	srv := startAuthServer(t)
	ctx := context.Background()
	const one = "# DB\n\nUse MySQL.\n"
	reviewChanges(t, srv, one)
	co, _ := gittest.NewCheckout(t, "git@github.com:"+repo+".git")
	home := t.TempDir()
	team := filepath.Join(memcore.ProjectDir(filepath.Join(home, ".claude"), co), "memory", "team")
	session := realclient.TeamSync{Dir: co, Home: home, Server: srv.url(), Token: srv.token(t, "bob", repo+":write")}
	run := claude.StartTeamSync(t, session)
	proctest.WaitFor(t, "the client's first pull and its watcher", func() bool {
		return read(team, "db.md") == one && run.Logged(watching)
	})

	write(t, team, "db.md", "# DB\n\nUse Postgres.\n")
	write(t, team, "cache.md", "Redis for sessions.\n")
	p := waitProposal(t, srv, "# DB\n\nUse Postgres.\n")
	if p.Author != "bob" || !strings.HasPrefix(p.Provenance.Client, "claude-code/2.1.112") {
		t.Errorf("the proposal %+v; want bob's through claude-code/2.1.112", p.Proposal)
	}
	if got := srv.entries(repo); got["db.md"] != one || got["cache.md"] != "Redis for sessions.\n" {
		t.Errorf("served while the edit waits: %q; want the reviewed db.md and the new cache.md", got)
	}
	write(t, team, "db.md", "# DB\n\nUse Postgres 16.\n")
	waitProposal(t, srv, "# DB\n\nUse Postgres 16.\n")
	time.Sleep(5 * time.Second) // two debounce periods of the client's watcher: a loop would push again
	if puts := pushesOf(t, run); puts != 2 {
		t.Errorf("%d pushes for two edits; want 2\n%s", puts, run)
	}
	run.Stop()

	next := claude.StartTeamSync(t, session)
	proctest.WaitFor(t, "the next session's pull and its watcher", func() bool {
		return read(team, "db.md") == one && next.Logged(watching)
	})
	time.Sleep(5 * time.Second)
	if puts := pushesOf(t, next); puts != 0 {
		t.Errorf("the next session pushed %d times; want none\n%s", puts, next)
	}
	list, err := srv.api.Proposals(ctx, client.ProposalOptions{Repo: repo, State: "all"})
	if err != nil || len(list.Proposals) != 1 {
		t.Errorf("proposals after two sessions: %+v %v; want one", list, err)
	}
}

// watching is what the stock client's debug log says once it watches its
// team folder: a change made before it is never pushed.
const watching = "team-memory-watcher: watching"

// waitProposal waits for the one open proposal to hold db.md's content
// and returns it.
func waitProposal(t *testing.T, srv *authServer, content string) *api.ProposalDetail {
	t.Helper()
	ctx := context.Background()
	var d *api.ProposalDetail
	proctest.WaitFor(t, "the proposal of "+content, func() bool {
		list, err := srv.api.Proposals(ctx, client.ProposalOptions{Repo: repo, State: "all"})
		if err != nil || len(list.Proposals) != 1 {
			return false
		}
		d, err = srv.api.Proposal(ctx, list.Proposals[0].ID)
		return err == nil && len(d.Changes) == 1 && d.Changes[0].Content != nil && *d.Changes[0].Content == content
	})
	return d
}

// pushesOf counts run's PUTs, failing the test for any not answered 200.
func pushesOf(t *testing.T, run *realclient.TeamSyncRun) int {
	t.Helper()
	n := 0
	for _, x := range run.Exchanges() {
		if x.Status != http.StatusOK && x.Status != http.StatusNotModified {
			t.Errorf("%s %s answered %d", x.Method, x.Path, x.Status)
		}
		if x.Method == http.MethodPut {
			n++
		}
	}
	return n
}
