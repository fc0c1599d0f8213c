package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/teammem/teammem/server/postgres"
	"github.com/teammem/teammem/server/sqlite"
)

// runMigrate implements `migrate up|down N|version`.
func runMigrate(ctx context.Context, args []string, e env) error {
	var dataDir, databaseURL string
	fs := newFlagSet("migrate", "teammem-server migrate up|down N|version [--database-url URL | --data-dir DIR]", e.stderr)
	fs.StringVar(&dataDir, "data-dir", "./.teammem", "the embedded store's data `DIR`")
	fs.StringVar(&databaseURL, "database-url", "", "Postgres `URL` (default: the embedded store)")
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
		return usageError{fmt.Errorf("usage: teammem-server migrate up|down N|version")}
	}
	var (
		v     uint
		dirty bool
		err   error
	)
	if databaseURL != "" {
		v, dirty, err = postgres.Migrate(ctx, databaseURL, cmd, n)
	} else {
		v, dirty, err = sqlite.Migrate(ctx, dataDir+"/"+embeddedDBName, cmd, n)
	}
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
