package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/teammem/teammem/server"
)

// StaleReports checks a store's stale-reference reports: saved and read
// back field for field (findings in order, Unicode intact, an empty list
// kept empty, a commit time unknown kept unknown), one per entry, commit
// and reporter (a later one there replaces it, another commit or
// reporter adds one), by repository, by key, and of the entries some
// report finds stale, sorted by key, commit and reporter.
func StaleReports(t *testing.T, s server.Store) {
	ctx := context.Background()
	if got, err := s.StaleReports(ctx, "acme/api", server.StaleQuery{}); err != nil || len(got) != 0 {
		t.Fatalf("StaleReports on a new store = %v, %v; want none", got, err)
	}
	at := t0.Truncate(time.Microsecond)
	commit := "0123456789abcdef0123456789abcdef01234567"
	first := []server.StaleReport{
		{Repo: "acme/api", Key: "deploy.md", Version: 3, Commit: commit, CommittedAt: at.Add(-time.Hour), Branch: "main", Reporter: "ana", At: at,
			Findings: []server.StaleFinding{
				{Reference: "scripts/release.sh", Line: 4, Reason: server.StaleMissing, Since: "abcdef1", RenamedTo: "scripts/ship.sh"},
				{Reference: "`RunÄ` in client/push.go", Line: 9, Reason: server.StaleNoSymbol},
			}},
		{Repo: "acme/api", Key: "ok.md", Version: 2, Commit: commit, Reporter: "ana", At: at, Findings: []server.StaleFinding{}},
	}
	save := func(repo string, reports ...server.StaleReport) {
		t.Helper()
		if err := s.SaveStaleReports(ctx, repo, reports); err != nil {
			t.Fatal(err)
		}
	}
	save("acme/api", first...)
	other := server.StaleReport{Repo: "acme/web", Key: "deploy.md", Version: 1, Commit: commit, Reporter: "bo", At: at,
		Findings: []server.StaleFinding{{Reference: "a/b.go:10-20", Line: 1, Reason: server.StalePastEnd}}}
	save("acme/web", other)
	read := func(repo, key string) []server.StaleReport {
		t.Helper()
		got, err := s.StaleReports(ctx, repo, server.StaleQuery{Key: key})
		if err != nil {
			t.Fatalf("StaleReports(%s, %q): %v", repo, key, err)
		}
		return got
	}
	if diff := cmp.Diff(first, read("acme/api", "")); diff != "" {
		t.Errorf("reports of acme/api (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]server.StaleReport{other}, read("acme/web", "")); diff != "" {
		t.Errorf("reports of acme/web (-want +got):\n%s", diff)
	}

	// The same reporter at the same commit replaces its report; another
	// commit, or another reporter at the same commit, adds one.
	again := first[0]
	again.Version, again.At, again.Branch, again.Findings = 4, at.Add(time.Minute), "", []server.StaleFinding{}
	newer := server.StaleReport{Repo: "acme/api", Key: "deploy.md", Version: 4, Commit: "fedcba9876543210fedcba9876543210fedcba98",
		CommittedAt: at, Branch: "main", Reporter: "ana", At: at.Add(2 * time.Minute), Findings: []server.StaleFinding{}}
	bo := server.StaleReport{Repo: "acme/api", Key: "deploy.md", Version: 4, Commit: commit, Branch: "feature/x", Reporter: "bo",
		At: at.Add(3 * time.Minute), Findings: first[0].Findings}
	save("acme/api", again)
	save("acme/api", newer)
	save("acme/api", bo)
	if diff := cmp.Diff([]server.StaleReport{again, bo, newer}, read("acme/api", "deploy.md")); diff != "" {
		t.Errorf("the reports of deploy.md, by commit and reporter (-want +got):\n%s", diff)
	}
	// Of the entries some report finds stale: all of deploy.md's (bo's
	// names a stale reference), none of ok.md's.
	if got, err := s.StaleReports(ctx, "acme/api", server.StaleQuery{Stale: true}); err != nil || len(got) != 3 || got[0].Key != "deploy.md" {
		t.Errorf("the reports of the entries found stale = %v, %v; want deploy.md's three", got, err)
	}
	if got, err := s.StaleReports(ctx, "acme/api", server.StaleQuery{Key: "ok.md", Stale: true}); err != nil || len(got) != 0 {
		t.Errorf("ok.md, never found stale, read as found stale: %v, %v", got, err)
	}
	if got := read("acme/api", ""); len(got) != 4 {
		t.Errorf("acme/api holds %d reports; want 4", len(got))
	}
	if got := read("acme/api", "missing.md"); len(got) != 0 {
		t.Errorf("a key without a report has %v", got)
	}
	staleReportsKept(t, s)
}

// staleReportsKept: a store keeps server.StaleReportsKept reports of an
// entry, each reporter's latest first: one teammate reporting commit
// after commit drops its own oldest reports, never another's latest.
func staleReportsKept(t *testing.T, s server.Store) {
	ctx := context.Background()
	at := t0.Truncate(time.Microsecond)
	report := func(reporter string, i int) server.StaleReport {
		return server.StaleReport{Repo: "acme/kept", Key: "a.md", Version: 1, Commit: fmt.Sprintf("%040x", i), Reporter: reporter,
			CommittedAt: at.Add(time.Duration(i) * time.Second), At: at.Add(time.Duration(i) * time.Second), Findings: []server.StaleFinding{}}
	}
	if err := s.SaveStaleReports(ctx, "acme/kept", []server.StaleReport{report("ana", 0)}); err != nil {
		t.Fatal(err)
	}
	n := server.StaleReportsKept + 5
	for i := 1; i <= n; i++ {
		if err := s.SaveStaleReports(ctx, "acme/kept", []server.StaleReport{report("bo", i)}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.StaleReports(ctx, "acme/kept", server.StaleQuery{Key: "a.md"})
	if err != nil {
		t.Fatal(err)
	}
	want := []server.StaleReport{report("ana", 0)}
	for i := n - server.StaleReportsKept + 2; i <= n; i++ {
		want = append(want, report("bo", i))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the reports kept (-want +got):\n%s", diff)
	}
}

// OldStaleReport is the report a migration test writes the way the
// schema before reports were kept by commit held it.
var OldStaleReport = server.StaleReport{Repo: "acme/api", Key: "a.md", Version: 2, Commit: "0123456789abcdef0123456789abcdef01234567",
	Reporter: "ana", At: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC),
	Findings: []server.StaleFinding{{Reference: "a/b.go", Line: 3, Reason: server.StaleMissing}}}

// OldStaleFindings is OldStaleReport's findings as that schema stored them.
const OldStaleFindings = `[{"reference":"a/b.go","line":3,"reason":"missing"}]`

// StaleReportMigrated checks a store migrated from a database holding
// OldStaleReport: it reads back whole, its commit time unknown and no
// branch. Then it saves a later report of the entry by bo at another
// commit, the one a roll back of the migration is to keep.
func StaleReportMigrated(t *testing.T, s server.Store) {
	t.Helper()
	ctx := context.Background()
	got, err := s.StaleReports(ctx, "acme/api", server.StaleQuery{})
	if diff := cmp.Diff([]server.StaleReport{OldStaleReport}, got); err != nil || diff != "" {
		t.Fatalf("after the migration (-want +got), %v:\n%s", err, diff)
	}
	later := server.StaleReport{Repo: "acme/api", Key: "a.md", Version: 2, Commit: "fedcba9876543210fedcba9876543210fedcba98",
		CommittedAt: OldStaleReport.At, Branch: "main", Reporter: "bo", At: OldStaleReport.At.Add(time.Minute), Findings: []server.StaleFinding{}}
	if err := s.SaveStaleReports(ctx, "acme/api", []server.StaleReport{later}); err != nil {
		t.Fatal(err)
	}
}
