package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/teammem/teammem/migrations"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/postgres"
	"github.com/teammem/teammem/testkit/pgtest"
)

// TestMigrateStaleReportsByCommit: migration 11 keeps each entry's report
// (its commit time unknown, no branch); rolling it back keeps each
// entry's report made last.
func TestMigrateStaleReportsByCommit(t *testing.T) {
	ctx := context.Background()
	url := freshURL(t, pgtest.URL(t))
	if v, _, err := postgres.Migrate(ctx, url, migrations.Up, 10); err != nil || v != 10 {
		t.Fatalf("migrate up to 10: %d, %v", v, err)
	}
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	old := server.StaleReport{Repo: "acme/api", Key: "a.md", Version: 2, Commit: "0123456789abcdef0123456789abcdef01234567",
		Reporter: "ana", At: at, Findings: []server.StaleFinding{{Reference: "a/b.go", Line: 3, Reason: server.StaleMissing}}}
	_, err := connect(t, url).Exec(ctx, `INSERT INTO stale_reports (repo, key, version, commit_id, reporter, reported_at, findings)
		VALUES ('acme/api', 'a.md', 2, $1, 'ana', $2, '[{"reference":"a/b.go","line":3,"reason":"missing"}]')`, old.Commit, at)
	if err != nil {
		t.Fatal(err)
	}
	db := open(t, url, postgres.Options{Migrate: true})
	got, err := db.StaleReports(ctx, "acme/api", server.StaleQuery{})
	if diff := cmp.Diff([]server.StaleReport{old}, got); err != nil || diff != "" {
		t.Fatalf("after the migration (-want +got), %v:\n%s", err, diff)
	}
	later := server.StaleReport{Repo: "acme/api", Key: "a.md", Version: 2, Commit: "fedcba9876543210fedcba9876543210fedcba98",
		CommittedAt: at, Branch: "main", Reporter: "bo", At: at.Add(time.Minute), Findings: []server.StaleFinding{}}
	if err := db.SaveStaleReports(ctx, "acme/api", []server.StaleReport{later}); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	latest, _ := migrations.Latest(migrations.Postgres)
	if v, _, err := postgres.Migrate(ctx, url, migrations.Down, int(latest)-10); err != nil || v != 10 {
		t.Fatalf("roll back to 10: %d, %v", v, err)
	}
	var n int
	var reporter string
	if err := connect(t, url).QueryRow(ctx, `SELECT count(*), min(reporter) FROM stale_reports`).Scan(&n, &reporter); err != nil ||
		n != 1 || reporter != "bo" {
		t.Errorf("after rolling back: %d reports, by %q, %v; want bo's alone", n, reporter, err)
	}
}
