package sqlite_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/teammem/teammem/migrations"
	"github.com/teammem/teammem/server/sqlite"
)

// TestExclusiveLock checks that one database file is used by one DB at a
// time: a second Open or a Migrate fails clearly while the first is open,
// and succeeds once it is closed.
func TestExclusiveLock(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "teammem.db")
	first, err := sqlite.Open(ctx, path, sqlite.Options{Migrate: true})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		call func() error
	}{
		{"open", func() error {
			db, err := sqlite.Open(ctx, path, sqlite.Options{})
			if err == nil {
				_ = db.Close()
			}
			return err
		}},
		{"open with migrate", func() error {
			db, err := sqlite.Open(ctx, path, sqlite.Options{Migrate: true})
			if err == nil {
				_ = db.Close()
			}
			return err
		}},
		{"migrate", func() error { _, _, err := sqlite.Migrate(ctx, path, migrations.Up, 0); return err }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			if !errors.Is(err, sqlite.ErrLocked) || !strings.Contains(err.Error(), "another teammem-server is using it") ||
				!strings.Contains(err.Error(), path) {
				t.Errorf("second use = %v; want ErrLocked naming %s and another teammem-server", err, path)
			}
		})
	}
	if v, _, err := sqlite.Migrate(ctx, path, migrations.Version, 0); err != nil || v == 0 {
		t.Errorf("migrate version beside the open store = %d, %v; want the schema version (it only reads)", v, err)
	}
	if err := first.Ping(ctx); err != nil {
		t.Errorf("Ping of the first DB after refused opens: %v", err)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	second, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		t.Fatalf("Open after Close: %v", err)
	}
	if err := second.Close(); err != nil {
		t.Fatal(err)
	}
}
