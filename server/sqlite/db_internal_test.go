package sqlite

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
)

// TestDatabaseMappedForReading: searches read the database through a
// memory mapping of mmapSize (a pragma the driver would ignore silently if
// misspelt in the DSN), the other reads and the writer without.
func TestDatabaseMappedForReading(t *testing.T) {
	db := openAt(t, "")
	for name, c := range map[string]struct {
		pool *sql.DB
		want int64
	}{"search": {db.search, mmapSize}, "read": {db.read, 0}, "write": {db.write, 0}} {
		var n int64
		if err := c.pool.QueryRowContext(context.Background(), `PRAGMA mmap_size`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != c.want {
			t.Errorf("%s pool: mmap_size %d, want %d", name, n, c.want)
		}
	}
}

// TestSyncEachCommit: with Options.SyncEachCommit the writer's connection
// commits with synchronous=FULL (the WAL is synced before a group is
// acknowledged), without it NORMAL; the read connections never write.
func TestSyncEachCommit(t *testing.T) {
	for _, tc := range []struct {
		sync bool
		want int64 // PRAGMA synchronous: 1 NORMAL, 2 FULL
	}{{false, 1}, {true, 2}} {
		db, err := Open(context.Background(), filepath.Join(t.TempDir(), "teammem.db"), Options{Migrate: true, SyncEachCommit: tc.sync})
		if err != nil {
			t.Fatal(err)
		}
		var n int64
		if err := db.write.QueryRowContext(context.Background(), `PRAGMA synchronous`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != tc.want {
			t.Errorf("SyncEachCommit %v: the writer's synchronous is %d, want %d", tc.sync, n, tc.want)
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
