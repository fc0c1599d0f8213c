package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/internal/writeplan"
)

// Queries of the read path, prepared once per pool (database/sql keeps one
// prepared statement per connection).
const (
	stateSQL = `SELECT version, checksum, entries, bytes, updated_at, since_floor FROM repos WHERE slug = ?`
	// metaSQL scans the repository's small entry rows in key order.
	metaSQL = `SELECT key, checksum, size, version, updated_at, deleted, deleted_at, '' FROM entries
		WHERE repo = ? AND version > ? ORDER BY key`
	// contentSQL adds each live entry's content: that of its revision at
	// the entry's version.
	contentSQL = `SELECT e.key, e.checksum, e.size, e.version, e.updated_at, e.deleted, e.deleted_at,
			coalesce(r.content, '')
		FROM entries e LEFT JOIN revisions r
			ON e.deleted = 0 AND r.repo = e.repo AND r.key = e.key AND r.version = e.version
		WHERE e.repo = ? AND e.version > ? ORDER BY e.key`
)

// readStmts are the read pool's prepared statements.
type readStmts struct {
	state, meta, content     *sql.Stmt
	revision, newestRevision *sql.Stmt
}

func prepareReads(ctx context.Context, pool *sql.DB) (*readStmts, error) {
	var r readStmts
	err := prepareAll(ctx, pool, []prepared{{&r.state, stateSQL}, {&r.meta, metaSQL}, {&r.content, contentSQL},
		{&r.revision, revisionAtSQL}, {&r.newestRevision, newestRevisionSQL}})
	if err != nil {
		return nil, err
	}
	return &r, nil
}

// Close closes the statements prepared so far.
func (r *readStmts) Close() error {
	return closeStmts(r.state, r.meta, r.content, r.revision, r.newestRevision)
}

// prepared is a statement to prepare, and where it goes.
type prepared struct {
	stmt **sql.Stmt
	sql  string
}

// prepareAll prepares each of stmts on pool; after a failure it closes
// those it prepared.
func prepareAll(ctx context.Context, pool *sql.DB, stmts []prepared) error {
	for i, p := range stmts {
		stmt, err := pool.PrepareContext(ctx, p.sql)
		if err != nil {
			for _, q := range stmts[:i] {
				_ = (*q.stmt).Close()
			}
			return wrap("prepare read statements", err)
		}
		*p.stmt = stmt
	}
	return nil
}

// closeStmts closes the statements that are not nil.
func closeStmts(stmts ...*sql.Stmt) error {
	var errs []error
	for _, s := range stmts {
		if s != nil {
			errs = append(errs, s.Close())
		}
	}
	return errors.Join(errs...)
}

// readState reads one repository row and its since-floor through a
// prepared statement.
func readState(ctx context.Context, stmt *sql.Stmt, repo string) (server.RepoState, int64, error) {
	st := server.RepoState{Repo: repo}
	var at, floor int64
	err := stmt.QueryRowContext(ctx, repo).
		Scan(&st.Version, &st.Checksum, &st.Entries, &st.Bytes, &at, &floor)
	if errors.Is(err, sql.ErrNoRows) {
		return server.RepoState{}, 0, fmt.Errorf("repository %s: %w", repo, server.ErrNotFound)
	}
	if err != nil {
		return server.RepoState{}, 0, wrap("read repository", err)
	}
	st.UpdatedAt = fromMicros(at)
	return st, floor, nil
}

// Snapshot reads the repository; see server.Store. The metadata of the
// current version (no content, no since) comes from memory when cached;
// everything else is read in one read transaction.
func (db *DB) Snapshot(ctx context.Context, repo string, opts server.ReadOptions) (server.Snapshot, error) {
	metaOnly := !opts.WithContent && opts.Since == 0 && opts.Stream == nil
	if !metaOnly {
		return db.readSnapshot(ctx, repo, opts)
	}
	if err := ctx.Err(); err != nil {
		return server.Snapshot{}, wrap("read snapshot", err)
	}
	if st, ok := db.states.get(repo); ok {
		if snap, ok := db.meta.Snapshot(st); ok {
			return snap, nil
		}
	}
	gen := db.meta.Generation()
	snap, err := db.readSnapshot(ctx, repo, opts)
	if err == nil {
		db.states.load(snap.RepoState)
		db.meta.Fill(gen, snap)
	}
	return snap, err
}

// readSnapshot reads the repository in one read transaction.
func (db *DB) readSnapshot(ctx context.Context, repo string, opts server.ReadOptions) (server.Snapshot, error) {
	tx, err := db.read.BeginTx(ctx, nil)
	if err != nil {
		return server.Snapshot{}, wrap("begin snapshot", err)
	}
	defer tx.Rollback() //nolint:errcheck // read-only
	st, floor, err := readState(ctx, tx.StmtContext(ctx, db.reads.state), repo)
	if err != nil {
		return server.Snapshot{}, err
	}
	snap, err := writeplan.NewSnapshot(st, floor, opts.Since)
	if err != nil {
		return server.Snapshot{}, err
	}
	stmt := db.reads.meta
	if opts.WithContent {
		stmt = db.reads.content
	}
	if opts.Stream != nil {
		if err := opts.Stream.State(snap.RepoState); err != nil {
			return server.Snapshot{}, err
		}
	}
	if err := readEntries(ctx, tx.StmtContext(ctx, stmt), repo, opts, &snap); err != nil {
		return server.Snapshot{}, err
	}
	return snap, nil
}

func readEntries(ctx context.Context, stmt *sql.Stmt, repo string, opts server.ReadOptions, snap *server.Snapshot) error {
	since := opts.Since
	rows, err := stmt.QueryContext(ctx, repo, since)
	if err != nil {
		return wrap("read entries", err)
	}
	defer rows.Close()
	if since == 0 && opts.Stream == nil {
		snap.Live = make([]server.Entry, 0, snap.Entries)
	}
	for rows.Next() {
		var e server.Entry
		var at int64
		var deleted bool
		var deletedAt sql.NullInt64
		if err := rows.Scan(&e.Key, &e.Checksum, &e.Size, &e.Version, &at, &deleted, &deletedAt, &e.Content); err != nil {
			return wrap("read entries", err)
		}
		if deleted {
			snap.Deleted = append(snap.Deleted, server.Tombstone{Key: e.Key, Version: e.Version, DeletedAt: fromMicros(deletedAt.Int64)})
			continue
		}
		e.UpdatedAt = fromMicros(at)
		if opts.Stream != nil {
			if err := opts.Stream.Entry(e); err != nil {
				return err
			}
			continue
		}
		snap.Live = append(snap.Live, e)
	}
	return wrap("read entries", rows.Err())
}

// Repos lists the repositories whose name starts with prefix, by slug;
// see server.Store.
func (db *DB) Repos(ctx context.Context, prefix string) ([]server.RepoState, error) {
	// A range of the primary key: text compares bytewise here.
	rows, err := db.read.QueryContext(ctx,
		`SELECT slug, version, checksum, entries, bytes, updated_at FROM repos
		WHERE version > 0 AND slug >= ?1 AND (?2 = '' OR slug < ?2) ORDER BY slug`, prefix, prefixEnd(prefix))
	if err != nil {
		return nil, wrap("list repositories", err)
	}
	defer rows.Close()
	repos := []server.RepoState{}
	for rows.Next() {
		var st server.RepoState
		var at int64
		if err := rows.Scan(&st.Repo, &st.Version, &st.Checksum, &st.Entries, &st.Bytes, &at); err != nil {
			return nil, wrap("list repositories", err)
		}
		st.UpdatedAt = fromMicros(at)
		repos = append(repos, st)
	}
	return repos, wrap("list repositories", rows.Err())
}

// prefixEnd returns the least string above every string that starts with
// prefix, bytewise ("" when there is none, as for ""): the end of a range
// scan for the prefix.
func prefixEnd(prefix string) string {
	for i := len(prefix) - 1; i >= 0; i-- {
		if prefix[i] < 0xff {
			return prefix[:i] + string([]byte{prefix[i] + 1})
		}
	}
	return ""
}

func micros(t time.Time) int64 { return t.UnixMicro() }

func fromMicros(us int64) time.Time { return time.UnixMicro(us).UTC() }
