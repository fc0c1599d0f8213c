package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/teammem/teammem/server/postgres"
	"github.com/teammem/teammem/server/storetest"
	"github.com/teammem/teammem/testkit/pgtest"
)

// TestSearchBackfill: entries written before the search migration (here:
// their vectors and links removed and the backfill cursor set, as
// migration 6 leaves a database holding data) are indexed by the
// replicas after Open, taking turns, in several batches, and found.
func TestSearchBackfill(t *testing.T) {
	ctx := context.Background()
	url := freshURL(t, pgtest.URL(t))
	db := open(t, url, postgres.Options{Migrate: true})
	storetest.BackfillWrite(t, db)
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, q := range []string{`UPDATE entries SET search = NULL`, `DELETE FROM search_links`, `DELETE FROM search_pending`,
		`INSERT INTO search_backfill (id, repo, key) VALUES (1, '', '')`} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	a, b := open(t, url, postgres.Options{}), open(t, url, postgres.Options{})
	for _, r := range []*postgres.DB{a, b} {
		if err := postgres.WaitBackfill(r); err != nil {
			t.Fatalf("backfill: %v", err)
		}
	}
	storetest.BackfillFound(t, a)
	var n int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM search_backfill`).Scan(&n); err != nil || n != 0 {
		t.Errorf("backfill cursor left: %d rows, %v", n, err)
	}
}

// TestLargeBacklogIndexedInBatches: 10 MB of marked entries are indexed by
// the next search, completely, a few megabytes per transaction.
func TestLargeBacklogIndexedInBatches(t *testing.T) {
	postgres.SetPendingPause(t, time.Hour) // no background indexing
	db := open(t, freshURL(t, pgtest.URL(t)), postgres.Options{Migrate: true})
	storetest.IndexedInBatches(t, db, func() (int64, int64) { return postgres.IndexBatches(db) })
}
