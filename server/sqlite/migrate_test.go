package sqlite_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/teammem/teammem/migrations"
	"github.com/teammem/teammem/server/sqlite"
	"github.com/teammem/teammem/server/storetest"
)

func TestMigrate(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "teammem.db")
	if _, err := sqlite.Open(ctx, path, sqlite.Options{}); !errors.Is(err, migrations.ErrSchemaMismatch) {
		t.Fatalf("Open without Migrate on a new file = %v; want ErrSchemaMismatch", err)
	}
	latest, _ := migrations.Latest(migrations.SQLite)
	storetest.Migrate(t, latest, func(ctx context.Context, cmd string, n int) (uint, bool, error) {
		return sqlite.Migrate(ctx, path, cmd, n)
	})
	db, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		t.Fatalf("Open after migrate up: %v", err)
	}
	defer db.Close()
	if err := db.Ping(ctx); err != nil {
		t.Errorf("Ping: %v", err)
	}
}
