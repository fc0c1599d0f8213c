// Package postgres is the server.Store on PostgreSQL (pgx v5 pool). Several
// server processes may share one database: writers of a repository are
// serialised by a row lock on it, and each process's checksum cache is
// used only when it reflects the version read under that lock.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/teammem/teammem/migrations"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/internal/searchtext"
	"github.com/teammem/teammem/server/internal/writeplan"
)

// Options configure Open.
type Options struct {
	// Migrate applies pending migrations on open. Without it, Open refuses
	// a database whose schema is not the one this build expects.
	Migrate bool
	// MaxConns bounds the connection pool; 0 keeps pgxpool's default (the
	// larger of 4 and the number of CPUs) or the URL's pool_max_conns.
	MaxConns int32
}

// DefaultConnectTimeout applies when the URL sets no connect_timeout, so
// that an unreachable server is reported quickly as server.ErrUnavailable.
const DefaultConnectTimeout = 3 * time.Second

// DB is a server.Store in a PostgreSQL database. It is safe for concurrent
// use, also by several processes on one database. A restarted or briefly
// unreachable server is survived: calls fail with server.ErrUnavailable
// meanwhile and the pool reconnects.
type DB struct {
	pool    *pgxpool.Pool
	cache   writeplan.Cache
	writes  writeQueues
	states  stateReads
	meta    writeplan.Meta // entry metadata by version, for the hashes probe
	id      string         // the server identity, read at open
	indexer *indexer       // indexes the keys this process's writes mark for search
	// indexBatches counts the transactions that indexed marked keys or
	// backfilled entries, and the most content one read.
	indexBatches searchtext.BatchStats
	// stopBackground ends the search backfill (see backfill) and the
	// indexer; backfilled is closed when the backfill has ended, with its
	// outcome in backfillErr, indexerDone when the indexer has.
	stopBackground context.CancelFunc
	backfilled     chan struct{}
	backfillErr    error
	indexerDone    chan struct{}
}

var _ server.Store = (*DB)(nil)

// Open connects to the database at url (a postgres:// URL or key=value
// DSN) and checks or, with opts.Migrate, applies its migrations. A server
// that cannot be reached gives an error wrapping server.ErrUnavailable.
func Open(ctx context.Context, url string, opts Options) (*DB, error) {
	ctx, cancel := bounded(ctx)
	defer cancel()
	cfg, err := poolConfig(url, opts)
	if err != nil {
		return nil, err
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open postgres: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, wrap("connect to postgres", err)
	}
	db := &DB{pool: pool}
	if opts.Migrate {
		_, _, err = Migrate(ctx, url, migrations.Up, 0)
	} else {
		err = db.checkSchema(ctx)
	}
	if err == nil {
		err = db.readServerID(ctx)
	}
	if err != nil {
		pool.Close()
		return nil, err
	}
	bctx, stop := context.WithCancel(context.Background())
	db.stopBackground, db.backfilled, db.indexerDone, db.indexer = stop, make(chan struct{}), make(chan struct{}), newIndexer()
	go func() {
		defer close(db.backfilled)
		db.backfillErr = db.backfill(bctx)
	}()
	go func() {
		defer close(db.indexerDone)
		db.indexer.run(bctx, db)
	}()
	return db, nil
}

func poolConfig(url string, opts Options) (*pgxpool.Config, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("parse postgres url: %w", err)
	}
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = DefaultConnectTimeout
	}
	if opts.MaxConns > 0 {
		cfg.MaxConns = opts.MaxConns
	}
	return cfg, nil
}

// checkSchema returns an error wrapping migrations.ErrSchemaMismatch unless
// the schema is at the latest version.
func (db *DB) checkSchema(ctx context.Context) error {
	var version uint
	var dirty bool
	err := db.pool.QueryRow(ctx, `SELECT version, dirty FROM schema_migrations LIMIT 1`).Scan(&version, &dirty)
	var pe *pgconn.PgError
	switch {
	case errors.Is(err, pgx.ErrNoRows), errors.As(err, &pe) && pe.Code == "42P01": // undefined_table
		version, dirty = 0, false
	case err != nil:
		return wrap("read schema version", err)
	}
	if err := migrations.Check(migrations.Postgres, version, dirty); err != nil {
		return fmt.Errorf("open postgres: %w", err)
	}
	return nil
}

// Ping reports whether the database answers and its schema is current.
func (db *DB) Ping(ctx context.Context) error {
	ctx, cancel := bounded(ctx)
	defer cancel()
	if err := db.pool.Ping(ctx); err != nil {
		return wrap("ping postgres", err)
	}
	return db.checkSchema(ctx)
}

// Close waits for the writes and reads still queued (their callers gave
// up) and closes the pool, waiting for connections in use to be released.
func (db *DB) Close() error {
	db.stopBackground()
	<-db.backfilled
	<-db.indexerDone
	db.writes.wait()
	db.states.wait()
	db.pool.Close()
	return nil
}
