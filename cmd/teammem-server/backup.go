package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/teammem/teammem/server/sqlite"
)

// runBackup implements `backup --to FILE`: an online, consistent copy of
// the embedded store (a running server keeps serving).
func runBackup(ctx context.Context, args []string, e env) error {
	var dataDir, to, databaseURL string
	fs := newFlagSet("backup", "teammem-server backup --to FILE [--data-dir DIR]", e.stderr)
	fs.StringVar(&dataDir, "data-dir", "./.teammem", "the embedded store's data `DIR`")
	fs.StringVar(&to, "to", "", "write the copy to this new `FILE` (never overwritten)")
	fs.StringVar(&databaseURL, "database-url", "", "refused: back up Postgres with pg_dump")
	if err := parseFlags(fs, args, e.getenv); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return usageError{fmt.Errorf("backup takes no arguments, got %q", fs.Arg(0))}
	case to == "":
		return usageError{errors.New("--to FILE is required")}
	case databaseURL != "":
		return usageError{errors.New("backup copies the embedded store only; back up Postgres with pg_dump (see the README's Production section)")}
	}
	src := filepath.Join(dataDir, embeddedDBName)
	if err := sqlite.Backup(ctx, src, to); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "backed up %s to %s\n", src, to)
	return nil
}
