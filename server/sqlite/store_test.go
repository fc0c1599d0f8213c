package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/sqlite"
	"github.com/teammem/teammem/server/storetest"
)

func open(t testing.TB) *sqlite.DB {
	t.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "teammem.db"), sqlite.Options{Migrate: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

func TestStore(t *testing.T) {
	storetest.Run(t, func(t *testing.T) server.Store { return open(t) })
}
