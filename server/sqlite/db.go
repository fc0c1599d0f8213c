// Package sqlite is the embedded server.Store: one SQLite database file
// (modernc.org/sqlite, no cgo) in WAL mode, used by one process at a time
// (an exclusive lock file guards it). Writes go through one writer
// goroutine that commits queued writes together (group commit); reads run
// in parallel through a separate pool, and repository states are served
// from memory.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/teammem/teammem/internal/filelock"
	"github.com/teammem/teammem/migrations"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/internal/searchtext"
	"github.com/teammem/teammem/server/internal/writeplan"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

// Options configure Open.
type Options struct {
	// Migrate applies pending migrations on open. Without it, Open refuses
	// a database whose schema is not the one this build expects.
	Migrate bool
	// SyncEachCommit makes every write transaction (a group of writes)
	// wait until its WAL frames are on disk before it is acknowledged
	// (synchronous=FULL on the writer's connection): an acknowledged
	// write then survives a power loss too. Without it (synchronous=
	// NORMAL) an acknowledged write survives the process's crash, and a
	// power loss can take the writes acknowledged since the last
	// checkpoint (see checkpointer), never the database's consistency.
	SyncEachCommit bool
}

// DB is a server.Store in one SQLite file. It is safe for concurrent use;
// writes are serialised by its writer goroutine, reads run in parallel with
// them. Only one DB may have a given file open at a time: Open fails with
// ErrLocked while another holds it, in this process or another.
type DB struct {
	path   string
	lock   *filelock.Lock
	write  *sql.DB // one connection, owned by the writer goroutine
	read   *sql.DB // query_only connections
	reads  *readStmts
	search *sql.DB // query_only connections reading through a mapping, for searches
	finds  *searchReads
	states states
	meta   writeplan.Meta
	writer *writer
	ckpt   *checkpointer
	id     string // the server identity, read at open
	// policies are the repositories' review policies, read once.
	policies policyCache
	// stopBackfill ends the search backfill (see backfill) and merger;
	// backfilled is closed when the backfill has ended, with its outcome
	// in backfillErr, merging when the merger has.
	stopBackfill context.CancelFunc
	backfilled   chan struct{}
	backfillErr  error
	merging      chan struct{}
	// pending counts the keys marked for the search index (see
	// search_pending.go).
	pending atomic.Int64
	// indexBatches counts the batches that indexed marked keys or
	// backfilled entries, and the most content one read.
	indexBatches searchtext.BatchStats
	closeOnce    sync.Once // Close closes once; later calls return closeErr
	closeErr     error
}

var _ server.Store = (*DB)(nil)

// readConns bounds the read pool.
const readConns = 4

// pragmas every connection runs: wait for locks instead of failing, WAL
// journal (readers never block the writer), the durability WAL needs, a
// 16 MiB page cache, a WAL file cut back to walSizeLimit when it rewinds.
var pragmas = pragmasSyncing("NORMAL")

// pragmasSyncing is pragmas with the given synchronous setting (naming a
// pragma a second time in the DSN does not override the first).
func pragmasSyncing(synchronous string) string {
	return fmt.Sprintf("_pragma=busy_timeout(%d)&_pragma=journal_mode(WAL)"+
		"&_pragma=synchronous(%s)&_pragma=foreign_keys(1)"+
		"&_pragma=cache_size(-16384)&_pragma=journal_size_limit(%d)", busyTimeout.Milliseconds(), synchronous, walSizeLimit)
}

// readPragmas are the read pools': their connections only read.
var readPragmas = pragmas + "&_query_only=1"

// searchPragmas are the search pool's: it reads the database file through
// a memory mapping (mmapSize).
var searchPragmas = readPragmas + fmt.Sprintf("&_pragma=mmap_size(%d)", mmapSize)

// mmapSize is how much of the database file a search reads through a
// memory mapping instead of read(2) into its connection's page cache: the
// most this build of SQLite allows (SQLITE_MAX_MMAP_SIZE, just under
// 2 GiB); a larger file reads the rest as before. A search walks FTS5
// pages spread over the index, which the 16 MiB caches of its connections
// do not hold, and copying each into the cache with pread would be much
// of a search's CPU. The pages a mapping touches are the kernel's
// page cache, which read(2) fills just the same, but the process's RSS
// counts them (RssFile; teammem-load reports it apart): searches have
// their own pool so that only the pages they read are counted, not the
// content a full pull streams (concurrent pulls through a mapping would
// add the repositories they read to the RSS as file pages). The writer
// never maps the file (see open). SQLite's caveat: an I/O error reading
// the file through the mapping (a failing disk) stops the process with a
// fault instead of failing the statement.
const mmapSize = 2147418112

// busyTimeout is how long a connection waits for a lock.
const busyTimeout = 10 * time.Second

// Open opens (creating when missing) the database file at path, takes its
// exclusive lock and checks or, with opts.Migrate, applies its migrations.
func Open(ctx context.Context, path string, opts Options) (*DB, error) {
	if err := checkPath(path); err != nil {
		return nil, err
	}
	lock, err := lockFile(path)
	if err != nil {
		return nil, err
	}
	db := &DB{path: path, lock: lock, states: states{m: map[string]server.RepoState{}}}
	if err := db.open(ctx, opts); err != nil {
		return nil, errors.Join(err, db.closeAll())
	}
	return db, nil
}

func (db *DB) open(ctx context.Context, opts Options) error {
	if opts.Migrate {
		if _, _, err := migrate(ctx, db.path, migrations.Up, 0); err != nil {
			return err
		}
	}
	var err error
	if db.read, err = openPool(ctx, db.path+"?"+readPragmas, readConns); err != nil {
		return err
	}
	if err := db.checkSchema(ctx); err != nil {
		return err
	}
	if err := db.readServerID(ctx); err != nil {
		return err
	}
	if db.reads, err = prepareReads(ctx, db.read); err != nil {
		return err
	}
	if db.search, err = openPool(ctx, db.path+"?"+searchPragmas, readConns); err != nil {
		return err
	}
	if db.finds, err = prepareSearchReads(ctx, db.search); err != nil {
		return err
	}
	if err := db.countPending(ctx); err != nil {
		return err
	}
	if db.ckpt, err = startCheckpointer(ctx, db.path); err != nil {
		return err
	}
	// The checkpointer, not the writer, copies the WAL into the file. (The
	// writer must never read pages through a mapping: a page it changes
	// then stays in its page cache across transactions instead of being
	// copied out of the mapping into a newly allocated page on every
	// write.)
	if db.write, err = openPool(ctx, db.path+"?"+writePragmas(opts), 1); err != nil {
		return err
	}
	if db.writer, err = startWriter(ctx, db); err != nil {
		return err
	}
	bctx, cancel := context.WithCancel(context.Background())
	db.stopBackfill, db.backfilled = cancel, make(chan struct{})
	db.merging = make(chan struct{})
	go func() {
		defer close(db.backfilled)
		db.backfillErr = db.backfill(bctx)
	}()
	go func() {
		defer close(db.merging)
		db.merger(bctx, db.writer.indexed)
	}()
	return nil
}

// writePragmas are the writer connection's: no automatic checkpoint (the
// checkpointer copies the WAL), BEGIN IMMEDIATE, temporary storage in
// memory, and with opts.SyncEachCommit an fsync of the WAL at every
// commit. In memory, the statement journal of a SAVEPOINT (the pages as
// they were before it, to roll back one job of a batch alone; client
// writes take none, see change.Save) stays in memory and is emptied at
// each RELEASE; on disk it spilled to a temporary file past 64 KiB, and
// when every write took a savepoint that was a write(2) for every page a
// write changed, 5 % of the server's CPU under 16 concurrent PUTs.
// Nothing reads it after a crash: it only serves a rollback to a
// savepoint.
func writePragmas(opts Options) string {
	p := pragmas
	if opts.SyncEachCommit {
		p = pragmasSyncing("FULL")
	}
	return p + "&_pragma=wal_autocheckpoint(0)&_pragma=temp_store(MEMORY)&_txlock=immediate"
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

// checkPath refuses a database path the driver would misread: empty, or
// with a '?' (it would start the DSN's parameters).
func checkPath(path string) error {
	if path == "" || strings.ContainsRune(path, '?') {
		return fmt.Errorf("open sqlite database %q: the path must be a file name without '?'", path)
	}
	return nil
}

// checkSchema returns an error wrapping migrations.ErrSchemaMismatch unless
// the schema is at the latest version.
func (db *DB) checkSchema(ctx context.Context) error { return checkSchemaOf(ctx, db.read, db.path) }

// checkSchemaOf is checkSchema for the database at path read through pool.
func checkSchemaOf(ctx context.Context, pool *sql.DB, path string) error {
	version, dirty, err := schemaVersion(ctx, pool)
	if err != nil {
		return err
	}
	if err := migrations.Check(migrations.SQLite, version, dirty); err != nil {
		return fmt.Errorf("open sqlite database %s: %w", path, err)
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

// Ping reports whether the database answers and its schema is current: it
// reads the schema version from the file.
func (db *DB) Ping(ctx context.Context) error {
	return db.checkSchema(ctx)
}

// Close stops the writer, closes both connection pools and releases the
// lock. Later calls return the first one's outcome.
func (db *DB) Close() error {
	db.closeOnce.Do(func() { db.closeErr = db.closeAll() })
	return db.closeErr
}

func (db *DB) closeAll() error {
	var errs []error
	if db.stopBackfill != nil {
		db.stopBackfill()
		<-db.backfilled
		<-db.merging
	}
	if db.writer != nil {
		db.writer.stop()
	}
	if db.ckpt != nil {
		errs = append(errs, db.ckpt.stop())
	}
	if db.reads != nil {
		errs = append(errs, db.reads.Close())
	}
	if db.finds != nil {
		errs = append(errs, closeStmts(db.finds.repos, db.finds.all))
	}
	for _, pool := range []*sql.DB{db.read, db.search, db.write} {
		if pool != nil {
			errs = append(errs, pool.Close())
		}
	}
	if err := db.lock.Release(); err != nil {
		errs = append(errs, fmt.Errorf("unlock sqlite database: %w", err))
	}
	return errors.Join(errs...)
}
