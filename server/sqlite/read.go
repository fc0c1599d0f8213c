package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/internal/liveset"
)

// querier is what both *sql.DB and *sql.Tx offer.
type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// readState reads one repository row and its since-floor.
func readState(ctx context.Context, q querier, repo string) (server.RepoState, int64, error) {
	st := server.RepoState{Repo: repo}
	var at, floor int64
	err := q.QueryRowContext(ctx,
		`SELECT version, checksum, entries, bytes, updated_at, since_floor FROM repos WHERE slug = ?`, repo).
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

// RepoState reads the repository's row; see server.Store.
func (db *DB) RepoState(ctx context.Context, repo string) (server.RepoState, error) {
	st, _, err := readState(ctx, db.read, repo)
	return st, err
}

// Snapshot reads the repository in one read transaction; see server.Store.
func (db *DB) Snapshot(ctx context.Context, repo string, opts server.ReadOptions) (server.Snapshot, error) {
	tx, err := db.read.BeginTx(ctx, nil)
	if err != nil {
		return server.Snapshot{}, wrap("begin snapshot", err)
	}
	defer tx.Rollback() //nolint:errcheck // read-only
	st, floor, err := readState(ctx, tx, repo)
	if err != nil {
		return server.Snapshot{}, err
	}
	snap, err := liveset.NewSnapshot(st, floor, opts.Since)
	if err != nil {
		return server.Snapshot{}, err
	}
	if err := readEntries(ctx, tx, repo, opts, &snap); err != nil {
		return server.Snapshot{}, err
	}
	return snap, nil
}

func readEntries(ctx context.Context, tx *sql.Tx, repo string, opts server.ReadOptions, snap *server.Snapshot) error {
	content := "''"
	if opts.WithContent {
		content = "content"
	}
	rows, err := tx.QueryContext(ctx, `SELECT key, checksum, size, version, updated_at, deleted, deleted_at, `+
		content+` FROM entries WHERE repo = ? AND version > ? ORDER BY key`, repo, opts.Since)
	if err != nil {
		return wrap("read entries", err)
	}
	defer rows.Close()
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
		snap.Live = append(snap.Live, e)
	}
	return wrap("read entries", rows.Err())
}

// Repos lists every repository by slug; see server.Store.
func (db *DB) Repos(ctx context.Context) ([]server.RepoState, error) {
	rows, err := db.read.QueryContext(ctx,
		`SELECT slug, version, checksum, entries, bytes, updated_at FROM repos WHERE version > 0 ORDER BY slug`)
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

func micros(t time.Time) int64 { return t.UnixMicro() }

func fromMicros(us int64) time.Time { return time.UnixMicro(us).UTC() }
