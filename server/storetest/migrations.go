package storetest

import (
	"context"
	"errors"
	"testing"

	"github.com/teammem/teammem/migrations"
)

// Migrate drives a store's migrate function (postgres.Migrate or
// sqlite.Migrate bound to one database) from an empty database through up,
// down and up again, checking the version after every step and that bad
// commands are refused.
func Migrate(t *testing.T, latest uint, migrate func(ctx context.Context, cmd string, n int) (uint, bool, error)) {
	steps := []struct {
		cmd         string
		n           int
		wantVersion uint
	}{
		{migrations.Version, 0, 0},
		{migrations.Up, 0, latest},
		{migrations.Up, 0, latest}, // nothing pending is not an error
		{migrations.Down, 1, latest - 1},
		{migrations.Up, 1, latest},
		{migrations.Version, 0, latest},
		{migrations.Down, int(latest), 0}, // every one, in one transaction
		{migrations.Up, 0, latest},
	}
	ctx := context.Background()
	for _, s := range steps {
		v, dirty, err := migrate(ctx, s.cmd, s.n)
		if err != nil || v != s.wantVersion || dirty {
			t.Fatalf("migrate %s %d = %d, %v, %v; want %d, clean", s.cmd, s.n, v, dirty, err, s.wantVersion)
		}
	}
	// More than are applied: refused before anything is dropped.
	_, _, err := migrate(ctx, migrations.Down, int(latest)+4)
	if !errors.Is(err, migrations.ErrTooManySteps) {
		t.Errorf("migrate down %d at version %d = %v; want ErrTooManySteps", latest+4, latest, err)
	}
	if v, _, err := migrate(ctx, migrations.Version, 0); err != nil || v != latest {
		t.Errorf("version after a refused down = %d, %v; want %d", v, err, latest)
	}
	for _, bad := range []struct {
		cmd string
		n   int
	}{{migrations.Down, 0}, {"sideways", 0}} {
		if _, _, err := migrate(ctx, bad.cmd, bad.n); err == nil {
			t.Errorf("migrate %s %d succeeded; want an error", bad.cmd, bad.n)
		}
	}
}
