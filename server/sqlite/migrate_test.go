package sqlite_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/teammem/teammem/migrations"
	"github.com/teammem/teammem/server/sqlite"
)

func TestOpenRefusesPendingMigrations(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "teammem.db")
	if _, err := sqlite.Open(ctx, path, sqlite.Options{}); !errors.Is(err, migrations.ErrSchemaMismatch) {
		t.Fatalf("Open without Migrate on a new file = %v; want ErrSchemaMismatch", err)
	}
	latest, _ := migrations.Latest(migrations.SQLite)
	steps := []struct {
		cmd         string
		n           int
		wantVersion uint
	}{
		{migrations.Version, 0, 0},
		{migrations.Up, 0, latest},
		{migrations.Up, 0, latest}, // nothing pending is not an error
		{migrations.Version, 0, latest},
		{migrations.Down, 1, latest - 1},
		{migrations.Up, 1, latest},
	}
	for _, s := range steps {
		v, dirty, err := sqlite.Migrate(ctx, path, s.cmd, s.n)
		if err != nil || v != s.wantVersion || dirty {
			t.Fatalf("Migrate(%s, %d) = %d, %v, %v; want %d, clean", s.cmd, s.n, v, dirty, err, s.wantVersion)
		}
	}
	db, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		t.Fatalf("Open after migrate up: %v", err)
	}
	defer db.Close()
	if err := db.Ping(ctx); err != nil {
		t.Errorf("Ping: %v", err)
	}
	if _, _, err := sqlite.Migrate(ctx, path, migrations.Down, 0); err == nil {
		t.Errorf("Migrate down 0 succeeded; want an error asking for a count")
	}
	if _, _, err := sqlite.Migrate(ctx, path, "sideways", 0); err == nil {
		t.Errorf("Migrate with an unknown command succeeded")
	}
}
