package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/internal/writeplan"
)

// queryRower is what both the pool and a transaction offer.
type queryRower interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// stateSQL reads one repository row and its since-floor.
const stateSQL = `SELECT version, checksum, entries, bytes, updated_at, since_floor
	FROM repos WHERE slug = $1 AND version > 0`

// readState reads one repository row and its since-floor.
func readState(ctx context.Context, q queryRower, repo string) (server.RepoState, int64, error) {
	return scanState(q.QueryRow(ctx, stateSQL, repo), repo)
}

// scanState scans the row of stateSQL.
func scanState(row pgx.Row, repo string) (server.RepoState, int64, error) {
	st := server.RepoState{Repo: repo}
	var floor int64
	err := row.Scan(&st.Version, &st.Checksum, &st.Entries, &st.Bytes, &st.UpdatedAt, &floor)
	if errors.Is(err, pgx.ErrNoRows) {
		return server.RepoState{}, 0, fmt.Errorf("repository %s: %w", repo, server.ErrNotFound)
	}
	if err != nil {
		return server.RepoState{}, 0, wrap("read repository", err)
	}
	st.UpdatedAt = st.UpdatedAt.UTC()
	return st, floor, nil
}

// RepoState reads the repository's row; see server.Store. Concurrent reads
// of one repository share a query (see stateReads).
func (db *DB) RepoState(ctx context.Context, repo string) (server.RepoState, error) {
	ctx, cancel := bounded(ctx)
	defer cancel()
	return db.states.read(ctx, repo, func(ctx context.Context, repo string) (server.RepoState, error) {
		st, _, err := readState(ctx, db.pool, repo)
		return st, err
	})
}

// Precondition lets a write whose If-Match names the state this process
// last committed pass without reading anything (the common case of a
// writer that probed after that commit), and evaluates any other against
// the state read (see RepoState); see server.Store. A write let pass is
// evaluated by its group, atomically: the group's guard fails when
// another process wrote meanwhile, and the group then reads the state
// under the row lock and refuses the write with 412 if it no longer holds.
//
// When writes of the repository are already queued or in flight here,
// the check first waits for them (the write would wait for them in the
// queue anyway): one that commits refuses this write before its body is
// read, instead of after it was decoded, checked and queued — the fate of
// every writer but one when several race with the same If-Match.
func (db *DB) Precondition(ctx context.Context, repo string, c server.Preconditions) error {
	if !c.IfNoneMatch.IsSet() && c.IfMatch.IsSet() && !c.IfMatch.IsAny() {
		if last, ok := db.writes.last(repo); ok && server.CheckIfMatch(last.state, c.IfMatch) == nil {
			now, err := db.writes.settle(ctx, repo)
			switch {
			case err != nil:
				return wrap("wait for the writes in flight", err)
			case now.seq != last.seq: // committed after this request arrived
				return c.Check(now.state)
			}
			return nil
		}
	}
	return server.CheckPreconditions(ctx, db.RepoState, repo, c)
}

// Snapshot reads the repository in one REPEATABLE READ, read-only
// transaction, sent as one pipelined batch (BEGIN, the repository's row,
// its entries, COMMIT): one round trip, however the read ends; see
// server.Store. A connection left in a transaction by a failure is closed
// by the pool rather than reused. The entries' metadata at the current
// version (no content, no since: the hashes probe) come from memory when
// the caller read the current state (opts.Current) and this process read
// or wrote that version (writeplan.Meta).
func (db *DB) Snapshot(ctx context.Context, repo string, opts server.ReadOptions) (server.Snapshot, error) {
	ctx, cancel := bounded(ctx)
	defer cancel()
	if opts.WithContent || opts.Since != 0 || opts.Stream != nil {
		return db.readSnapshot(ctx, repo, opts)
	}
	if cur := opts.Current; cur != nil {
		if snap, ok := db.meta.Snapshot(*cur); ok {
			return snap, nil
		}
	}
	gen := db.meta.Generation()
	snap, err := db.readSnapshot(ctx, repo, opts)
	if err == nil {
		db.meta.Fill(gen, snap)
	}
	return snap, err
}

// readSnapshot reads the repository in one pipelined batch; see Snapshot.
func (db *DB) readSnapshot(ctx context.Context, repo string, opts server.ReadOptions) (server.Snapshot, error) {
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		return server.Snapshot{}, wrap("begin snapshot", err)
	}
	defer conn.Release()
	content := "''"
	if opts.WithContent {
		content = "content"
	}
	b := &pgx.Batch{}
	b.Queue("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
	b.Queue(stateSQL, repo)
	b.Queue(`SELECT key, checksum, size, version, updated_at, deleted, deleted_at, `+
		content+` FROM entries WHERE repo = $1 AND version > $2 ORDER BY key`, repo, opts.Since)
	b.Queue("COMMIT")
	br := conn.SendBatch(ctx, b)
	defer br.Close()
	if _, err := br.Exec(); err != nil {
		return server.Snapshot{}, wrap("begin snapshot", err)
	}
	st, floor, err := scanState(br.QueryRow(), repo)
	if err != nil {
		return server.Snapshot{}, err
	}
	snap, err := writeplan.NewSnapshot(st, floor, opts.Since)
	if err != nil {
		return server.Snapshot{}, err
	}
	if opts.Stream != nil {
		if err := opts.Stream.State(snap.RepoState); err != nil {
			return server.Snapshot{}, err
		}
	}
	rows, err := br.Query()
	if err != nil {
		return server.Snapshot{}, wrap("read entries", err)
	}
	if err := readEntries(rows, opts, &snap); err != nil {
		return server.Snapshot{}, err
	}
	return snap, nil
}

func readEntries(rows pgx.Rows, opts server.ReadOptions, snap *server.Snapshot) error {
	var e server.Entry
	var deleted bool
	var deletedAt *time.Time
	_, err := pgx.ForEachRow(rows, []any{&e.Key, &e.Checksum, &e.Size, &e.Version, &e.UpdatedAt, &deleted, &deletedAt, &e.Content},
		func() error {
			if deleted {
				snap.Deleted = append(snap.Deleted, server.Tombstone{Key: e.Key, Version: e.Version, DeletedAt: deletedAt.UTC()})
				return nil
			}
			e.UpdatedAt = e.UpdatedAt.UTC()
			if opts.Stream != nil {
				return opts.Stream.Entry(e)
			}
			snap.Live = append(snap.Live, e)
			return nil
		})
	return wrap("read entries", err)
}

// Repos lists the repositories whose name starts with prefix, by slug; see
// server.Store.
func (db *DB) Repos(ctx context.Context, prefix string) ([]server.RepoState, error) {
	ctx, cancel := bounded(ctx)
	defer cancel()
	rows, err := db.pool.Query(ctx, `SELECT slug, version, checksum, entries, bytes, updated_at
		FROM repos WHERE version > 0 AND starts_with(slug, $1) ORDER BY slug`, prefix)
	if err != nil {
		return nil, wrap("list repositories", err)
	}
	repos := []server.RepoState{}
	var st server.RepoState
	_, err = pgx.ForEachRow(rows, []any{&st.Repo, &st.Version, &st.Checksum, &st.Entries, &st.Bytes, &st.UpdatedAt},
		func() error {
			st.UpdatedAt = st.UpdatedAt.UTC()
			repos = append(repos, st)
			return nil
		})
	if err != nil {
		return nil, wrap("list repositories", err)
	}
	return repos, nil
}
