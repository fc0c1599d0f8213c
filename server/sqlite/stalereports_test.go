package sqlite_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/teammem/teammem/migrations"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/sqlite"
)

// TestMigrateStaleReportsByCommit: migration 14 keeps each entry's report
// (its commit time unknown, no branch); rolling it back keeps each
// entry's report made last.
func TestMigrateStaleReportsByCommit(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "teammem.db")
	if v, _, err := sqlite.Migrate(ctx, path, migrations.Up, 13); err != nil || v != 13 {
		t.Fatalf("migrate up to 13: %d, %v", v, err)
	}
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	old := server.StaleReport{Repo: "acme/api", Key: "a.md", Version: 2, Commit: "0123456789abcdef0123456789abcdef01234567",
		Reporter: "ana", At: at, Findings: []server.StaleFinding{{Reference: "a/b.go", Line: 3, Reason: server.StaleMissing}}}
	raw := rawDB(t, path)
	if _, err := raw.ExecContext(ctx, `INSERT INTO stale_reports (repo, key, version, commit_id, reporter, reported_at, findings)
		VALUES ('acme/api', 'a.md', 2, ?, 'ana', ?, '[{"reference":"a/b.go","line":3,"reason":"missing"}]')`, old.Commit, at.UnixMicro()); err != nil {
		t.Fatal(err)
	}
	db, err := sqlite.Open(ctx, path, sqlite.Options{Migrate: true})
	if err != nil {
		t.Fatal(err)
	}
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
	latest, _ := migrations.Latest(migrations.SQLite)
	if v, _, err := sqlite.Migrate(ctx, path, migrations.Down, int(latest)-13); err != nil || v != 13 {
		t.Fatalf("roll back to 13: %d, %v", v, err)
	}
	var n int
	var reporter string
	if err := rawDB(t, path).QueryRowContext(ctx, `SELECT count(*), min(reporter) FROM stale_reports`).Scan(&n, &reporter); err != nil ||
		n != 1 || reporter != "bo" {
		t.Errorf("after rolling back: %d reports, by %q, %v; want bo's alone", n, reporter, err)
	}
}

// rawDB opens the database file at path without the store, closed when
// the test ends.
func rawDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = raw.Close() })
	return raw
}
