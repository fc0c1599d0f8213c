package main

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/teammem/teammem/migrations"
	"github.com/teammem/teammem/server/postgres"
	"github.com/teammem/teammem/server/sqlite"
)

// runMigrate implements `migrate up|down N|version`.
func runMigrate(ctx context.Context, args []string, e env) error {
	var dataDir, databaseURL string
	var force bool
	fs := newFlagSet("migrate", "teammem-server migrate up|down N [--force]|version [--database-url URL | --data-dir DIR]", e.stderr)
	fs.BoolVar(&force, "force", false, "really roll back with down: it drops tables and the data in them")
	storeFlags(fs, &dataDir, &databaseURL)
	var rest []string // positional arguments come before the flags (cli.md)
	for len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		rest, args = append(rest, args[0]), args[1:]
	}
	if err := parseFlags(fs, args, e.getenv); err != nil {
		return err
	}
	rest = append(rest, fs.Args()...)
	if len(rest) == 0 {
		return usageError{fmt.Errorf("migrate needs up, down N or version")}
	}
	cmd, n := rest[0], 0
	switch {
	case cmd == "up" && len(rest) == 1, cmd == "version" && len(rest) == 1:
	case cmd == "down" && len(rest) == 2:
		v, err := strconv.Atoi(rest[1])
		if err != nil || v <= 0 {
			return usageError{fmt.Errorf("migrate down needs a positive count, got %q", rest[1])}
		}
		n = v
	default:
		return usageError{fmt.Errorf("usage: teammem-server migrate up|down N --force|version")}
	}
	store, files := func(ctx context.Context, cmd string, n int) (uint, bool, error) {
		return sqlite.Migrate(ctx, filepath.Join(dataDir, embeddedDBName), cmd, n)
	}, migrations.SQLite
	if databaseURL != "" {
		store, files = func(ctx context.Context, cmd string, n int) (uint, bool, error) {
			return postgres.Migrate(ctx, databaseURL, cmd, n)
		}, migrations.Postgres
	}
	if cmd == migrations.Down {
		if err := planDown(ctx, e, store, files, n, force); err != nil {
			return err
		}
	}
	v, dirty, err := store(ctx, cmd, n)
	if err != nil {
		return fmt.Errorf("migrate %s: %w", cmd, err)
	}
	state := ""
	if dirty {
		state = " (dirty: the last migration failed halfway; fix it by hand)"
	}
	fmt.Fprintf(e.stdout, "schema version %d%s\n", v, state)
	return nil
}

// planDown prints what `migrate down n` would roll back and drop, and
// refuses it without --force or when fewer than n migrations are applied.
func planDown(ctx context.Context, e env, store func(context.Context, string, int) (uint, bool, error), files fs.FS, n int, force bool) error {
	current, _, err := store(ctx, migrations.Version, 0)
	if err != nil {
		return fmt.Errorf("migrate down: %w", err)
	}
	plan, target, err := migrations.DownPlan(files, current, n)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "migrate down %d: schema version %d → %d, rolling back (newest first):\n", n, current, target)
	for _, s := range plan {
		fmt.Fprintf(e.stdout, "  %06d_%s:\n", s.Version, s.Name)
		for _, line := range strings.Split(strings.TrimSpace(s.DownSQL), "\n") {
			fmt.Fprintf(e.stdout, "    %s\n", line)
		}
	}
	if target == 0 {
		fmt.Fprintln(e.stdout, "This drops every table: every repository, entry and revision is erased.")
	}
	if !force {
		return usageError{fmt.Errorf("migrate down changes nothing without --force (it drops the tables above and their data; back up first)")}
	}
	return nil
}
