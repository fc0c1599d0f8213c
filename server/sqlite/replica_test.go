package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/teammem/teammem/server/sqlite"
	"github.com/teammem/teammem/server/storetest"
)

// openPair opens one new database file through two DB handles, as two
// processes would.
func openPair(t *testing.T) (*sqlite.DB, *sqlite.DB) {
	path := filepath.Join(t.TempDir(), "teammem.db")
	var dbs [2]*sqlite.DB
	for i, opts := range []sqlite.Options{{Migrate: true}, {}} {
		db, err := sqlite.Open(context.Background(), path, opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = db.Close() })
		dbs[i] = db
	}
	return dbs[0], dbs[1]
}

// TestTwoHandles writes one file through two handles: each handle's
// checksum cache must notice the other's writes, and concurrent CAS writers
// must serialise across them.
func TestTwoHandles(t *testing.T) {
	t.Run("alternate", func(t *testing.T) {
		a, b := openPair(t)
		storetest.Alternate(t, a, b)
	})
	t.Run("concurrent", func(t *testing.T) {
		a, b := openPair(t)
		storetest.ConcurrentCAS(t, a, b)
	})
}
