package sqlite_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/teammem/teammem/server/sqlite"
	"github.com/teammem/teammem/server/storetest"
)

// TestSearchBackfill: entries written before the search migration (here:
// their index rows removed and the backfill cursor set, as migration 8
// leaves a database holding data) are indexed after Open, in several
// batches, and found.
func TestSearchBackfill(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "teammem.db")
	db, err := sqlite.Open(ctx, path, sqlite.Options{Migrate: true})
	if err != nil {
		t.Fatal(err)
	}
	storetest.BackfillWrite(t, db)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`DELETE FROM search_fts`, `DELETE FROM search_docs`, `DELETE FROM search_links_fts`,
		`DELETE FROM search_links`, `INSERT INTO search_backfill (id, repo, key) VALUES (1, '', '')`} {
		if _, err := raw.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	_ = raw.Close()
	db, err = sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := sqlite.WaitBackfill(db); err != nil {
		t.Fatalf("backfill: %v", err)
	}
	storetest.BackfillFound(t, db)
}
