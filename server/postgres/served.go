package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/teammem/teammem/server"
)

var _ server.ServedLog = (*DB)(nil)

// saveServedSQL saves one array element per record.
const saveServedSQL = `INSERT INTO served (subject, repo, surface, version, window_start, replica, first_at, last_at, count, keys)
	SELECT s, r, f, v, w, p, a, b, c, string_to_array(k, E'\n') FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[],
		$5::timestamptz[], $6::text[], $7::timestamptz[], $8::timestamptz[], $9::bigint[], $10::text[]) AS x(s, r, f, v, w, p, a, b, c, k)
	ON CONFLICT (subject, repo, surface, version, window_start, replica) DO UPDATE SET
		first_at = least(served.first_at, excluded.first_at), last_at = greatest(served.last_at, excluded.last_at),
		count = greatest(served.count, excluded.count), keys = excluded.keys`

// SaveServed saves recs in one statement (server.ServedLog).
func (db *DB) SaveServed(ctx context.Context, recs []server.ServedRecord) error {
	ctx, cancel := bounded(ctx)
	defer cancel()
	n := len(recs)
	subj, repo, surf, rep, keys := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	ver, count := make([]int64, n), make([]int64, n)
	win, first, last := make([]time.Time, n), make([]time.Time, n), make([]time.Time, n)
	for i, r := range recs {
		subj[i], repo[i], surf[i], rep[i] = r.Subject, r.Repo, string(r.Surface), r.Replica
		ver[i], count[i], win[i], first[i], last[i] = r.Version, r.Count, r.Window, r.First, r.Last
		for j, k := range r.Keys {
			if j > 0 {
				keys[i] += "\n"
			}
			keys[i] += k
		}
	}
	_, err := db.pool.Exec(ctx, saveServedSQL, subj, repo, surf, ver, win, rep, first, last, count, keys)
	return wrap("save served records", err)
}

// ServedBefore reads subject's servings of repo (server.ServedLog).
func (db *DB) ServedBefore(ctx context.Context, subject, repo string, at time.Time, limit int) ([]server.ServedRecord, error) {
	ctx, cancel := bounded(ctx)
	defer cancel()
	rows, err := db.pool.Query(ctx, `SELECT surface, version, window_start, replica, first_at, last_at, count, keys FROM served
		WHERE subject = $1 AND repo = $2 AND first_at <= $3 ORDER BY first_at DESC, version DESC LIMIT $4`, subject, repo, at, limit)
	if err != nil {
		return nil, wrap("read served records", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (server.ServedRecord, error) {
		r := server.ServedRecord{Subject: subject, Repo: repo}
		err := row.Scan((*string)(&r.Surface), &r.Version, &r.Window, &r.Replica, &r.First, &r.Last, &r.Count, &r.Keys)
		r.Window, r.First, r.Last = r.Window.UTC(), r.First.UTC(), r.Last.UTC()
		if len(r.Keys) == 0 {
			r.Keys = nil
		}
		return r, err
	})
	return out, wrap("read served records", err)
}

// PruneServed removes old served records (server.ServedLog).
func (db *DB) PruneServed(ctx context.Context, before time.Time) (int64, error) {
	ctx, cancel := bounded(ctx)
	defer cancel()
	tag, err := db.pool.Exec(ctx, `DELETE FROM served WHERE last_at < $1`, before)
	return tag.RowsAffected(), wrap("prune served records", err)
}

// KeyAt reads key's newest revision at or before version (server.ServedLog).
func (db *DB) KeyAt(ctx context.Context, repo, key string, version int64) (server.Revision, error) {
	ctx, cancel := bounded(ctx)
	defer cancel()
	r := server.Revision{Repo: repo, Key: key}
	err := db.pool.QueryRow(ctx, `SELECT version, op, checksum, size, author, at, coalesce(content, '') FROM revisions
		WHERE repo = $1 AND key = $2 AND version <= $3 ORDER BY version DESC LIMIT 1`, repo, key, version).
		Scan(&r.Version, (*string)(&r.Op), &r.Checksum, &r.Size, &r.Author, &r.At, &r.Content)
	if errors.Is(err, pgx.ErrNoRows) {
		return server.Revision{}, fmt.Errorf("%s in %s at version %d: %w", key, repo, version, server.ErrNotFound)
	}
	r.At = r.At.UTC()
	return r, wrap("read revision", err)
}
