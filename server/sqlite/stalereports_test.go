package sqlite_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/teammem/teammem/migrations"
	"github.com/teammem/teammem/server/sqlite"
	"github.com/teammem/teammem/server/storetest"
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
	old := storetest.OldStaleReport
	if _, err := rawDB(t, path).ExecContext(ctx, `INSERT INTO stale_reports (repo, key, version, commit_id, reporter, reported_at, findings)
		VALUES (?, ?, ?, ?, ?, ?, ?)`, old.Repo, old.Key, old.Version, old.Commit, old.Reporter, old.At.UnixMicro(), storetest.OldStaleFindings); err != nil {
		t.Fatal(err)
	}
	db, err := sqlite.Open(ctx, path, sqlite.Options{Migrate: true})
	if err != nil {
		t.Fatal(err)
	}
	storetest.StaleReportMigrated(t, db)
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
