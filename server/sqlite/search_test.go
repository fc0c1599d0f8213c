package sqlite_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/teammem/teammem/migrations"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/sqlite"
	"github.com/teammem/teammem/server/storetest"
)

// TestSearchBackfill: entries written before migration 13 (here: the
// migration rolled back and applied again, which leaves the index empty
// and every entry numbered) are indexed after Open, in several batches,
// and found.
func TestSearchBackfill(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "teammem.db")
	db, err := sqlite.Open(ctx, path, sqlite.Options{Migrate: true})
	if err != nil {
		t.Fatal(err)
	}
	storetest.BackfillWrite(t, db)
	storetest.BackfillFound(t, reindexed(t, db, path))
}

// reindexed closes db (at path, at the latest schema), rolls migration 13
// (and those after it) back and applies them again, which leaves the index
// empty and every live entry numbered, and opens the database again once
// its backfill has indexed them all; the database is closed when the test
// ends.
func reindexed(t *testing.T, db *sqlite.DB, path string) *sqlite.DB {
	t.Helper()
	ctx := context.Background()
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	latest, _ := migrations.Latest(migrations.SQLite)
	if v, _, err := sqlite.Migrate(ctx, path, migrations.Down, int(latest)-12); err != nil || v != 12 {
		t.Fatalf("roll back to version 12: version %d, %v", v, err)
	}
	db, err := sqlite.Open(ctx, path, sqlite.Options{Migrate: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	if err := sqlite.WaitBackfill(db); err != nil {
		t.Fatalf("backfill: %v", err)
	}
	return db
}

// TestSearchIndexMergedWhenIdle: 40 writes, each followed by a search
// (which indexes the keys the write marked), leave the FTS5 index in many
// segments; once the writes pause, the merger merges them (its steps did
// work, the index holds fewer data rows) and every entry is still found,
// the replaced text no more.
func TestSearchIndexMergedWhenIdle(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "teammem.db")
	db, err := sqlite.Open(ctx, path, sqlite.Options{Migrate: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const n = 40
	count := func(q string) int { return len(storetest.SearchKeys(t, db, "acme/api", q)) }
	write := func(key, content string) {
		if _, err := db.Apply(ctx, server.Write{Repo: "acme/api", Author: "t", Puts: []server.Put{put(key, content)}}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range n {
		key := fmt.Sprintf("n%02d.md", i)
		write(key, fmt.Sprintf("# Note %d\n\nThe canary deploy of service%d waits for the replica.\n", i, i))
		if i%2 == 0 { // replaced: its old words must not be found
			write(key, fmt.Sprintf("# Note %d\n\nThe canary rollout of service%d.\n", i, i))
		}
		count("canary")
	}
	rows := func() (n int) {
		raw, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
		if err != nil {
			t.Fatal(err)
		}
		defer raw.Close()
		if err := raw.QueryRowContext(ctx, `SELECT count(*) FROM search_fts_data`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := rows()
	deadline := time.Now().Add(30 * time.Second)
	for last := int64(-1); ; {
		time.Sleep(1500 * time.Millisecond) // past mergeIdle and a few steps
		m := sqlite.Merged(db)
		if m > 0 && m == last {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the merger did %d steps in 30 s and has not stopped", m)
		}
		last = m
	}
	if after := rows(); after >= before {
		t.Errorf("search_fts_data holds %d rows after merging, %d before; want fewer", after, before)
	}
	if got := count("canary"); got != n {
		t.Errorf("canary: %d hits, want %d", got, n)
	}
	if got := count("deploy"); got != n/2 {
		t.Errorf("deploy: %d hits, want %d (the replaced notes' old words are gone)", got, n/2)
	}
}

// TestLargeBacklogIndexedInBatches: 10 MB of marked entries are indexed by
// the next search, completely, a few megabytes per writer transaction.
func TestLargeBacklogIndexedInBatches(t *testing.T) {
	db := open(t)
	storetest.IndexedInBatches(t, db, func() (int64, int64) { return sqlite.IndexBatches(db) })
}
