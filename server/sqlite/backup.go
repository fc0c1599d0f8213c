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
// the server's lock and refuses to overwrite an existing file. The copy is
// made mode 0600 whatever the umask: it holds every memory and its history.
// Restoring is putting the copy in place of teammem.db while no server runs.
func Backup(ctx context.Context, path, to string) error {
	if strings.ContainsRune(path, '?') {
		return fmt.Errorf("back up %q: the path must be a file name without '?'", path)
	}
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("back up: %w", err)
	}
	// VACUUM INTO writes into an empty file: made here, exclusively and
	// private, so the copy is never readable by others, not even briefly.
	f, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("back up to %s: %w", to, fs.ErrExist)
	} else if err != nil {
		return fmt.Errorf("back up to %s: %w", to, err)
	}
	if err := errors.Join(f.Chmod(0o600), f.Close()); err != nil {
		_ = os.Remove(to)
		return fmt.Errorf("back up to %s: %w", to, err)
	}
	pool, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_pragma=busy_timeout(10000)")
	if err != nil {
		_ = os.Remove(to)
		return fmt.Errorf("back up: open %s: %w", path, err)
	}
	defer pool.Close()
	if _, err := pool.ExecContext(ctx, `VACUUM INTO ?`, to); err != nil {
		_ = os.Remove(to)
		return wrap("back up: vacuum into "+to, err)
	}
	return nil
}
