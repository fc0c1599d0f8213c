// Package migrations embeds the SQL migrations of both stores (postgres/ and
// sqlite/, in golang-migrate's NNNNNN_name.up.sql / .down.sql layout) and runs
// them through golang-migrate on a database driver the store package opens.
// It imports no database driver itself.
package migrations

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"

	"github.com/golang-migrate/migrate/v4"
	"github.com/golang-migrate/migrate/v4/database"
	"github.com/golang-migrate/migrate/v4/source/iofs"
)

//go:embed postgres/*.sql sqlite/*.sql
var files embed.FS

// Postgres and SQLite hold each store's migrations at their root.
var (
	Postgres = mustSub("postgres")
	SQLite   = mustSub("sqlite")
)

// Commands accepted by Run.
const (
	Up      = "up"      // apply every pending migration (n > 0: at most n)
	Down    = "down"    // roll back n migrations (n must be > 0)
	Version = "version" // change nothing, report the version
)

// ErrSchemaMismatch is returned by Check when the database schema is not the
// one this build expects: migrations are pending, the last one failed halfway
// (dirty) or the database is newer than the build.
var ErrSchemaMismatch = errors.New("database schema does not match this build")

func mustSub(dir string) fs.FS {
	sub, err := fs.Sub(files, dir)
	if err != nil {
		panic(err)
	}
	return sub
}

// Latest returns the highest migration version in fsys.
func Latest(fsys fs.FS) (uint, error) {
	names, err := fs.Glob(fsys, "*.up.sql")
	if err != nil {
		return 0, fmt.Errorf("list migrations: %w", err)
	}
	var latest uint
	for _, name := range names {
		num, _, _ := strings.Cut(name, "_")
		v, err := strconv.ParseUint(num, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("parse migration name %q: %w", name, err)
		}
		latest = max(latest, uint(v))
	}
	return latest, nil
}

// Run performs cmd (Up, Down or Version) with the migrations in fsys on drv,
// named dbName in messages, and returns the resulting schema version (0 when
// no migration was ever applied) and whether the last migration failed
// halfway. Run closes drv. Applying nothing because everything is already
// applied is not an error.
func Run(drv database.Driver, dbName string, fsys fs.FS, cmd string, n int) (version uint, dirty bool, err error) {
	src, err := iofs.New(fsys, ".")
	if err != nil {
		_ = drv.Close()
		return 0, false, fmt.Errorf("read migrations: %w", err)
	}
	m, err := migrate.NewWithInstance("iofs", src, dbName, drv)
	if err != nil {
		_ = drv.Close()
		return 0, false, fmt.Errorf("start migrations: %w", err)
	}
	defer func() {
		srcErr, dbErr := m.Close()
		err = errors.Join(err, srcErr, dbErr)
	}()
	if err := step(m, cmd, n); err != nil {
		return 0, false, err
	}
	return versionOf(m)
}

func step(m *migrate.Migrate, cmd string, n int) error {
	var err error
	switch {
	case cmd == Up && n <= 0:
		err = m.Up()
	case cmd == Up:
		err = m.Steps(n)
	case cmd == Down:
		return fmt.Errorf("migrate down: run it with RollBack, in one transaction")
	case cmd == Version:
		return nil
	default:
		return fmt.Errorf("migrate: unknown command %q (want up, down or version)", cmd)
	}
	if err != nil && !errors.Is(err, migrate.ErrNoChange) {
		return fmt.Errorf("migrate %s: %w", cmd, err)
	}
	return nil
}

func versionOf(m *migrate.Migrate) (uint, bool, error) {
	v, dirty, err := m.Version()
	if errors.Is(err, migrate.ErrNilVersion) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("read schema version: %w", err)
	}
	return v, dirty, nil
}

// Check returns an error wrapping ErrSchemaMismatch unless version is the
// latest in fsys and not dirty.
func Check(fsys fs.FS, version uint, dirty bool) error {
	latest, err := Latest(fsys)
	if err != nil {
		return err
	}
	switch {
	case dirty:
		return fmt.Errorf("%w: migration %d failed halfway; fix it and run `teammem-server migrate`", ErrSchemaMismatch, version)
	case version < latest:
		return fmt.Errorf("%w: schema is at version %d, this build needs %d; run `teammem-server migrate up` or start with --migrate", ErrSchemaMismatch, version, latest)
	case version > latest:
		return fmt.Errorf("%w: schema is at version %d, newer than this build's %d; upgrade teammem-server", ErrSchemaMismatch, version, latest)
	}
	return nil
}
