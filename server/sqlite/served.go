package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/teammem/teammem/server"
)

var (
	_ server.ServedLog = (*DB)(nil)
	_ server.ServedLog = AuditAt("")
)

// SaveServed saves recs in the writer's next batch (server.ServedLog).
// Records are saved servedChunk at a time, each chunk in a batch of its
// own: the writer's other jobs run between them.
func (db *DB) SaveServed(ctx context.Context, recs []server.ServedRecord) error {
	for chunk := range slices.Chunk(recs, servedChunk) {
		err := db.exec(ctx, "save served records", func(ctx context.Context, tx *sql.Tx) error { return saveServed(ctx, tx, chunk) })
		if err != nil {
			return err
		}
	}
	return nil
}

// servedChunk is how many served records one write batch saves.
const servedChunk = 1000

// ServedBefore reads subject's servings of repo (server.ServedLog).
func (db *DB) ServedBefore(ctx context.Context, subject, repo string, at time.Time, limit int) ([]server.ServedRecord, error) {
	return readServedBefore(ctx, db.read, subject, repo, at, limit)
}

// PruneServed removes old served records (server.ServedLog).
func (db *DB) PruneServed(ctx context.Context, before time.Time) (int64, error) {
	var n int64
	err := db.exec(ctx, "prune served records", func(ctx context.Context, tx *sql.Tx) error {
		var err error
		n, err = pruneServed(ctx, tx, before)
		return err
	})
	return n, err
}

// KeyAt reads key's newest revision at or before version (server.ServedLog).
func (db *DB) KeyAt(ctx context.Context, repo, key string, version int64) (server.Revision, error) {
	return readKeyAt(ctx, db.read, repo, key, version)
}

// SaveServed saves recs in the file.
func (p AuditAt) SaveServed(ctx context.Context, recs []server.ServedRecord) error {
	return p.inTx(ctx, func(tx sqlExec) error { return saveServed(ctx, tx, recs) })
}

// ServedBefore reads subject's servings of repo from the file.
func (p AuditAt) ServedBefore(ctx context.Context, subject, repo string, at time.Time, limit int) (out []server.ServedRecord, err error) {
	err = p.within(ctx, func(pool *sql.DB) error {
		out, err = readServedBefore(ctx, pool, subject, repo, at, limit)
		return err
	})
	return out, err
}

// PruneServed removes old served records from the file.
func (p AuditAt) PruneServed(ctx context.Context, before time.Time) (n int64, err error) {
	err = p.inTx(ctx, func(tx sqlExec) error {
		n, err = pruneServed(ctx, tx, before)
		return err
	})
	return n, err
}

// KeyAt reads key's newest revision at or before version from the file.
func (p AuditAt) KeyAt(ctx context.Context, repo, key string, version int64) (rev server.Revision, err error) {
	err = p.within(ctx, func(pool *sql.DB) error {
		rev, err = readKeyAt(ctx, pool, repo, key, version)
		return err
	})
	return rev, err
}

// saveServedSQL saves the records of a JSON array, one statement for all.
const saveServedSQL = `INSERT INTO served (subject, repo, surface, version, window_start, replica, first_at, last_at, count, keys)
	SELECT r ->> '$.s', r ->> '$.r', r ->> '$.f', r ->> '$.v', r ->> '$.w', r ->> '$.p', r ->> '$.a', r ->> '$.b', r ->> '$.c', r ->> '$.k'
	FROM (SELECT value AS r FROM json_each(?)) WHERE true
	ON CONFLICT (subject, repo, surface, version, window_start, replica) DO UPDATE SET
		first_at = min(first_at, excluded.first_at), last_at = max(last_at, excluded.last_at),
		count = max(count, excluded.count), keys = excluded.keys`

// servedRow is a record as saveServedSQL reads it.
type servedRow struct {
	Subject string `json:"s"`
	Repo    string `json:"r"`
	Surface string `json:"f"`
	Version int64  `json:"v"`
	Window  int64  `json:"w"`
	Replica string `json:"p"`
	First   int64  `json:"a"`
	Last    int64  `json:"b"`
	Count   int64  `json:"c"`
	Keys    string `json:"k"`
}

func saveServed(ctx context.Context, tx sqlExec, recs []server.ServedRecord) error {
	rows := make([]servedRow, len(recs))
	for i, r := range recs {
		rows[i] = servedRow{r.Subject, r.Repo, string(r.Surface), r.Version, micros(r.Window), r.Replica, micros(r.First), micros(r.Last),
			r.Count, strings.Join(r.Keys, "\n")}
	}
	b, err := json.Marshal(rows)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, saveServedSQL, string(b))
	return wrap("save served records", err)
}

func readServedBefore(ctx context.Context, q *sql.DB, subject, repo string, at time.Time, limit int) ([]server.ServedRecord, error) {
	rows, err := q.QueryContext(ctx, `SELECT surface, version, window_start, replica, first_at, last_at, count, keys FROM served
		WHERE subject = ? AND repo = ? AND first_at <= ? ORDER BY first_at DESC, version DESC LIMIT ?`, subject, repo, micros(at), limit)
	if err != nil {
		return nil, wrap("read served records", err)
	}
	defer rows.Close()
	var out []server.ServedRecord
	for rows.Next() {
		r := server.ServedRecord{Subject: subject, Repo: repo}
		var window, first, last int64
		var keys string
		if err := rows.Scan((*string)(&r.Surface), &r.Version, &window, &r.Replica, &first, &last, &r.Count, &keys); err != nil {
			return nil, wrap("read served records", err)
		}
		r.Window, r.First, r.Last = fromMicros(window), fromMicros(first), fromMicros(last)
		if keys != "" {
			r.Keys = strings.Split(keys, "\n")
		}
		out = append(out, r)
	}
	return out, wrap("read served records", rows.Err())
}

func pruneServed(ctx context.Context, tx sqlExec, before time.Time) (int64, error) {
	res, err := tx.ExecContext(ctx, `DELETE FROM served WHERE last_at < ?`, micros(before))
	if err != nil {
		return 0, wrap("prune served records", err)
	}
	return res.RowsAffected()
}

func readKeyAt(ctx context.Context, q *sql.DB, repo, key string, version int64) (server.Revision, error) {
	r := server.Revision{Repo: repo, Key: key}
	var at int64
	err := q.QueryRowContext(ctx, `SELECT version, op, checksum, size, author, at, coalesce(content, '') FROM revisions
		WHERE repo = ? AND key = ? AND version <= ? ORDER BY version DESC LIMIT 1`, repo, key, version).
		Scan(&r.Version, (*string)(&r.Op), &r.Checksum, &r.Size, &r.Author, &at, &r.Content)
	if errors.Is(err, sql.ErrNoRows) {
		return server.Revision{}, fmt.Errorf("%s in %s at version %d: %w", key, repo, version, server.ErrNotFound)
	}
	r.At = fromMicros(at)
	return r, wrap("read revision", err)
}
