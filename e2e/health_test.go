//go:build unix

package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/client"
	"github.com/teammem/teammem/testkit/gittest"
	"github.com/teammem/teammem/testkit/pgtest"
	"github.com/teammem/teammem/testkit/proctest"
)

// messyMemory is a repository with a finding of most kinds: a duplicate,
// a near-duplicate, one setting given two values, a dangling line, an
// orphan and an index past its budget.
func messyMemory() map[string]string {
	files := map[string]string{
		"pool.md":   "---\nname: Connection pool\ntype: project\n---\nUse PgBouncer in transaction mode; pool_max_conns: 16\n",
		"pool-2.md": "---\ntype: project\nname: connection pool\n---\nuse pgbouncer in  transaction mode; POOL_MAX_CONNS: 16\n",
		"tuning.md": "# DB tuning\n\n- pool_max_conns: 32\n- timeout: 30s\n",
		"http.md":   "# HTTP client\n\ntimeout: 5s\n",
		"ci-disk.md": "# CI disk\n\nWhen the CI runner runs out of disk, clear the docker build cache with docker builder prune " +
			"before retrying the pipeline; the cache grows past 40 GB within a week on the shared runners.\n",
		"ci-space.md": "# Out of disk on CI\n\nIf the CI runner is out of disk, clear the docker build cache (docker builder prune) " +
			"before you retry the pipeline: on the shared runners the cache grows past 40 GB in a week.\n",
		"deploy-notes.md": "---\nname: Deploy notes\ndescription: how staging is deployed\n---\nStaging deploys from main on merge.\n",
	}
	var index strings.Builder
	index.WriteString("# Team memory\n\n")
	for _, k := range []string{"pool.md", "pool-2.md", "tuning.md", "http.md", "ci-disk.md", "ci-space.md", "old-runbook.md"} {
		fmt.Fprintf(&index, "- [%s](%s) — about %s\n", strings.TrimSuffix(k, ".md"), k, strings.TrimSuffix(k, ".md"))
	}
	for i := range 200 {
		k := fmt.Sprintf("notes/n%03d.md", i)
		files[k] = fmt.Sprintf("# Note %d\n\nNote number %d, kept for the record: w%d.\n", i, i, i*7919)
		fmt.Fprintf(&index, "- [Note %d](%s) — a note\n", i, k)
	}
	files["MEMORY.md"] = index.String()
	return files
}

// TestHealthPageInBrowser: the Health page of a messy repository in
// headless Chromium against the real server: every finding with its fix,
// a button per fixable finding, and the server's answer to one (a
// proposal waiting for review, nothing written). It saves screenshots.
func TestHealthPageInBrowser(t *testing.T) {
	ctx := newBrowser(t)
	a := startAuthServer(t)
	if _, err := a.api.Put(context.Background(), "acme/messy", api.PutRequest{Entries: messyMemory()}, ""); err != nil {
		t.Fatal(err)
	}
	b := &tab{t: t, ctx: ctx, base: a.url()}
	b.signIn(a.token(t, "wes", "acme/messy:write"))
	if st := b.open("/ui/r/acme/messy"); st != 200 {
		t.Fatalf("repository page: %d", st)
	}
	if st := b.click(`a[href="/ui/r/acme/messy/~health"]`); st != 200 {
		t.Fatalf("health page: %d", st)
	}
	page := b.text()
	for _, want := range []string{"duplicate", "near-duplicate", "conflicting-values", "dangling-link", "orphan-topic",
		"index-over-budget", "fold pool-2.md into pool.md", "old-runbook.md", "deploy-notes.md", "Propose fix"} {
		if !strings.Contains(page, want) {
			t.Errorf("the Health page lacks %q:\n%s", want, page)
		}
	}
	b.screenshot("health")
	st := b.click(`form.inline button[type=submit]`)
	if st != 200 || !strings.Contains(b.text(), "waits for an admin's review") {
		t.Errorf("propose fix: %d\n%s", st, b.text())
	}
	b.screenshot("health-proposed")
	if v := a.entries("acme/messy"); len(v) != len(messyMemory()) {
		t.Errorf("proposing wrote: %d entries", len(v))
	}
}

// tidyCommand runs the real `teammem-server tidy --repo repo` on the
// database at url and returns what it printed.
func tidyCommand(t *testing.T, url string) string {
	t.Helper()
	cmd := proctest.Command(t, serverBin, "tidy", "--repo", repo, "--database-url", url)
	cmd.Env = cleanEnv()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("tidy: %v\n%s", err, out)
	}
	return string(out)
}

// TestTidyCommandThroughReview: `teammem-server tidy --repo` beside a
// running server on Postgres proposes a fix of a duplicate and a dangling
// line, writing nothing; an admin approves it through the REST API; a
// writer's agent folder converges on the tidy repository, and tidy then
// proposes nothing.
func TestTidyCommandThroughReview(t *testing.T) {
	ctx := context.Background()
	url := pgtest.URL(t)
	srv := startAuthServer(t, "--database-url", url, "--migrate")
	untidy := map[string]string{
		"MEMORY.md": "- [Pool](pool.md) — pgbouncer\n- [Gone](gone.md) — deleted\n",
		"pool.md":   "Use PgBouncer in transaction mode.\n",
		"pool-2.md": "use pgbouncer in  transaction mode.\n",
	}
	if _, err := srv.api.Put(ctx, repo, api.PutRequest{Entries: untidy}, ""); err != nil {
		t.Fatal(err)
	}
	co, _ := gittest.NewCheckout(t, "git@github.com:"+repo+".git")
	a := startAgentAs(t, srv, srv.token(t, "wes", repo+":write"), t.TempDir(), co)
	waitFile(t, a.dir, "pool-2.md", untidy["pool-2.md"])
	if out := tidyCommand(t, url); !strings.Contains(out, "proposal #1: 2 changes over version 1") {
		t.Fatalf("tidy printed:\n%s", out)
	}
	open, err := srv.api.Proposals(ctx, client.ProposalOptions{Repo: repo, State: "open"})
	if err != nil || len(open.Proposals) != 1 || open.Proposals[0].Provenance == nil || open.Proposals[0].Provenance.Surface != "consolidation" {
		t.Fatalf("open proposals %+v, %v", open, err)
	}
	if got := srv.entries(repo); len(got) != len(untidy) {
		t.Fatalf("tidy wrote: %d entries", len(got))
	}
	if _, err := srv.api.Decide(ctx, open.Proposals[0].ID, "approve", ""); err != nil {
		t.Fatal(err)
	}
	waitFile(t, a.dir, "pool-2.md", absent)
	waitFile(t, a.dir, "MEMORY.md", "- [Pool](pool.md) — pgbouncer\n")
	if out := tidyCommand(t, url); !strings.Contains(out, "nothing to tidy in "+repo) {
		t.Errorf("tidy after the approval printed:\n%s", out)
	}
}
