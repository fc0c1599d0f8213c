package postgres_test

import (
	"context"
	"testing"

	"github.com/teammem/teammem/migrations"
	"github.com/teammem/teammem/server/postgres"
	"github.com/teammem/teammem/server/storetest"
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
	old := storetest.OldStaleReport
	_, err := connect(t, url).Exec(ctx, `INSERT INTO stale_reports (repo, key, version, commit_id, reporter, reported_at, findings)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`, old.Repo, old.Key, old.Version, old.Commit, old.Reporter, old.At, storetest.OldStaleFindings)
	if err != nil {
		t.Fatal(err)
	}
	db := open(t, url, postgres.Options{Migrate: true})
	storetest.StaleReportMigrated(t, db)
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
