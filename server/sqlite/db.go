// Package sqlite is the embedded server.Store: one SQLite database file
// (modernc.org/sqlite, no cgo) in WAL mode, written through a single
// connection that takes BEGIN IMMEDIATE, read through a separate pool.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/teammem/teammem/migrations"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/internal/liveset"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

// Options configure Open.
type Options struct {
	// Migrate applies pending migrations on open. Without it, Open refuses
	// a database whose schema is not the one this build expects.
	Migrate bool
}

// DB is a server.Store in one SQLite file. It is safe for concurrent use;
// writes are serialised, reads run in parallel with them.
type DB struct {
	path  string
	write *sql.DB // one connection; every transaction is BEGIN IMMEDIATE
	read  *sql.DB // query_only connections
	cache liveset.Cache
}

var _ server.Store = (*DB)(nil)

// readConns bounds the read pool.
const readConns = 4

// pragmas every connection runs: wait for locks instead of failing, WAL
// journal (readers never block the writer), and the durability WAL needs.
const pragmas = "_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)" +
	"&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(1)"

// Open opens (creating when missing) the database file at path and checks
// or, with opts.Migrate, applies its migrations.
func Open(ctx context.Context, path string, opts Options) (*DB, error) {
	if path == "" || strings.ContainsRune(path, '?') {
		return nil, fmt.Errorf("open sqlite database %q: the path must be a file name without '?'", path)
	}
	write, err := openPool(ctx, path+"?"+pragmas+"&_txlock=immediate", 1)
	if err != nil {
		return nil, err
	}
	db := &DB{path: path, write: write}
	if err := db.prepareSchema(ctx, opts.Migrate); err != nil {
		_ = write.Close()
		return nil, err
	}
	db.read, err = openPool(ctx, path+"?"+pragmas+"&_query_only=1", readConns)
	if err != nil {
		_ = write.Close()
		return nil, err
	}
	return db, nil
}

func openPool(ctx context.Context, dsn string, conns int) (*sql.DB, error) {
	pool, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open sqlite database: %w", err)
	}
	pool.SetMaxOpenConns(conns)
	pool.SetMaxIdleConns(conns)
	pool.SetConnMaxIdleTime(0)
	if err := pool.PingContext(ctx); err != nil {
		_ = pool.Close()
		return nil, fmt.Errorf("open sqlite database: %w", err)
	}
	return pool, nil
}

func (db *DB) prepareSchema(ctx context.Context, migrate bool) error {
	if migrate {
		_, _, err := Migrate(ctx, db.path, migrations.Up, 0)
		return err
	}
	return db.checkSchema(ctx)
}

// checkSchema returns an error wrapping migrations.ErrSchemaMismatch unless
// the schema is at the latest version.
func (db *DB) checkSchema(ctx context.Context) error {
	version, dirty, err := schemaVersion(ctx, db.write)
	if err != nil {
		return err
	}
	if err := migrations.Check(migrations.SQLite, version, dirty); err != nil {
		return fmt.Errorf("open sqlite database %s: %w", db.path, err)
	}
	return nil
}

// schemaVersion reads golang-migrate's schema_migrations table (version 0
// when it does not exist yet).
func schemaVersion(ctx context.Context, q *sql.DB) (uint, bool, error) {
	var version uint
	var dirty bool
	err := q.QueryRowContext(ctx, `SELECT version, dirty FROM schema_migrations LIMIT 1`).Scan(&version, &dirty)
	switch {
	case errors.Is(err, sql.ErrNoRows), err != nil && strings.Contains(err.Error(), "no such table"):
		return 0, false, nil
	case err != nil:
		return 0, false, wrap("read schema version", err)
	}
	return version, dirty, nil
}

// Ping reports whether the database answers and its schema is current.
func (db *DB) Ping(ctx context.Context) error {
	if err := db.read.PingContext(ctx); err != nil {
		return wrap("ping sqlite", err)
	}
	return db.checkSchema(ctx)
}

// Close closes both connection pools.
func (db *DB) Close() error {
	return errors.Join(db.read.Close(), db.write.Close())
}
