package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/teammem/teammem/server/sqlite"
	"github.com/teammem/teammem/server/storetest"
)

// TestTwoHandles writes one file through two DB handles, as two processes
// would: each handle's checksum cache must notice the other's writes.
func TestTwoHandles(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "teammem.db")
	a, err := sqlite.Open(ctx, path, sqlite.Options{Migrate: true})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	storetest.Alternate(t, a, b)
	other := filepath.Join(t.TempDir(), "other.db")
	c, err := sqlite.Open(ctx, other, sqlite.Options{Migrate: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	d, err := sqlite.Open(ctx, other, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	storetest.ConcurrentCAS(t, c, d)
}
