package sqlite

import (
	"context"
	"database/sql"
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
