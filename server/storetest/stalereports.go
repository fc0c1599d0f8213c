package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/teammem/teammem/server"
)

// StaleReports checks a store's stale-reference reports: saved and read
// back field for field (findings in order, Unicode intact, an empty list
// kept empty), one per entry (a later one replaces it), by repository and
// by key.
func StaleReports(t *testing.T, s server.Store) {
	ctx := context.Background()
	if got, err := s.StaleReports(ctx, "acme/api", ""); err != nil || len(got) != 0 {
		t.Fatalf("StaleReports on a new store = %v, %v; want none", got, err)
	}
	at := t0.Truncate(time.Microsecond)
	commit := "0123456789abcdef0123456789abcdef01234567"
	first := []server.StaleReport{
		{Repo: "acme/api", Key: "deploy.md", Version: 3, Commit: commit, Reporter: "ana", At: at, Findings: []server.StaleFinding{
			{Reference: "scripts/release.sh", Line: 4, Reason: server.StaleMissing, Since: "abcdef1", RenamedTo: "scripts/ship.sh"},
			{Reference: "`RunÄ` in client/push.go", Line: 9, Reason: server.StaleNoSymbol},
		}},
		{Repo: "acme/api", Key: "ok.md", Version: 2, Commit: commit, Reporter: "ana", At: at, Findings: []server.StaleFinding{}},
	}
	if err := s.SaveStaleReports(ctx, "acme/api", first); err != nil {
		t.Fatal(err)
	}
	other := []server.StaleReport{{Repo: "acme/web", Key: "deploy.md", Version: 1, Commit: commit, Reporter: "bo", At: at,
		Findings: []server.StaleFinding{{Reference: "a/b.go:10-20", Line: 1, Reason: server.StalePastEnd}}}}
	if err := s.SaveStaleReports(ctx, "acme/web", other); err != nil {
		t.Fatal(err)
	}
	read := func(repo, key string) []server.StaleReport {
		t.Helper()
		got, err := s.StaleReports(ctx, repo, key)
		if err != nil {
			t.Fatalf("StaleReports(%s, %q): %v", repo, key, err)
		}
		return got
	}
	if diff := cmp.Diff(first, read("acme/api", "")); diff != "" {
		t.Errorf("reports of acme/api (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(other, read("acme/web", "")); diff != "" {
		t.Errorf("reports of acme/web (-want +got):\n%s", diff)
	}
	later := server.StaleReport{Repo: "acme/api", Key: "deploy.md", Version: 5, Commit: "fedcba9876543210fedcba9876543210fedcba98",
		Reporter: "bo", At: at.Add(time.Minute), Findings: []server.StaleFinding{}}
	if err := s.SaveStaleReports(ctx, "acme/api", []server.StaleReport{later}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]server.StaleReport{later}, read("acme/api", "deploy.md")); diff != "" {
		t.Errorf("the later report of deploy.md (-want +got):\n%s", diff)
	}
	if got := read("acme/api", ""); len(got) != 2 {
		t.Errorf("acme/api holds %d reports after a replacement; want 2", len(got))
	}
	if got := read("acme/api", "missing.md"); len(got) != 0 {
		t.Errorf("a key without a report has %v", got)
	}
}
