package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"

	msqlite "github.com/golang-migrate/migrate/v4/database/sqlite"

	"github.com/teammem/teammem/migrations"
)

// Migrate runs a migration command on the database file at path: cmd is
// migrations.Up (all pending, or at most n when n > 0), migrations.Down
// (roll back n, in one transaction; see migrations.RollBack) or migrations.Version (change nothing). It returns the
// resulting schema version and whether it is dirty. Up and down take the
// database's exclusive lock, so they fail with ErrLocked while a server uses
// the file; version only reads, and works beside a running server.
// It uses golang-migrate's sqlite driver, which is built on
// modernc.org/sqlite, and its schema_migrations table.
func Migrate(ctx context.Context, path, cmd string, n int) (version uint, dirty bool, err error) {
	if cmd == migrations.Version {
		return readVersion(ctx, path)
	}
	lock, err := lockFile(path)
	if err != nil {
		return 0, false, err
	}
	defer func() {
		if uerr := lock.Release(); uerr != nil {
			err = errors.Join(err, fmt.Errorf("unlock sqlite database: %w", uerr))
		}
	}()
	return migrate(ctx, path, cmd, n)
}

// migrate is Migrate for a caller that holds the lock.
func migrate(ctx context.Context, path, cmd string, n int) (uint, bool, error) {
	pool, err := sql.Open("sqlite", path+"?"+pragmas)
	if err != nil {
		return 0, false, fmt.Errorf("open sqlite database for migration: %w", err)
	}
	if err := pool.PingContext(ctx); err != nil {
		_ = pool.Close()
		return 0, false, wrap("open sqlite database for migration", err)
	}
	if cmd == migrations.Down {
		defer pool.Close()
		v, err := migrations.RollBack(ctx, pool, migrations.SQLite, n)
		return v, false, err
	}
	drv, err := msqlite.WithInstance(pool, &msqlite.Config{})
	if err != nil {
		_ = pool.Close()
		return 0, false, fmt.Errorf("start sqlite migration: %w", err)
	}
	return migrations.Run(drv, "sqlite", migrations.SQLite, cmd, n)
}

// readVersion reads the schema version of the existing database file at
// path without the store's lock.
func readVersion(ctx context.Context, path string) (uint, bool, error) {
	if err := checkPath(path); err != nil {
		return 0, false, err
	}
	if _, err := os.Stat(path); err != nil {
		return 0, false, fmt.Errorf("read the schema version: %w", err)
	}
	pool, err := openPool(ctx, "file:"+path+"?mode=ro&_pragma=busy_timeout(10000)", 1)
	if err != nil {
		return 0, false, err
	}
	defer pool.Close()
	return schemaVersion(ctx, pool)
}
