package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
)

// Backup writes an online, consistent copy of the database file at path to
// the new file to (VACUUM INTO: one read transaction, so a server may keep
// writing meanwhile; the copy is compact and holds no WAL). It never takes
// the server's lock and refuses to overwrite an existing file. Restoring is
// putting the copy in place of teammem.db while no server runs.
func Backup(ctx context.Context, path, to string) error {
	if strings.ContainsRune(path, '?') {
		return fmt.Errorf("back up %q: the path must be a file name without '?'", path)
	}
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("back up: %w", err)
	}
	if _, err := os.Lstat(to); err == nil {
		return fmt.Errorf("back up to %s: %w", to, fs.ErrExist)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("back up to %s: %w", to, err)
	}
	pool, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_pragma=busy_timeout(10000)")
	if err != nil {
		return fmt.Errorf("back up: open %s: %w", path, err)
	}
	defer pool.Close()
	if _, err := pool.ExecContext(ctx, `VACUUM INTO ?`, to); err != nil {
		_ = os.Remove(to)
		return wrap("back up: vacuum into "+to, err)
	}
	return nil
}
