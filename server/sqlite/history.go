package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/internal/writeplan"
)

// revisionColumns are a revision's columns but its content, with its
// version's provenance (revisions r LEFT JOIN versions v: revisionFrom).
const (
	revisionColumns = `r.version, r.op, r.checksum, r.size, r.author, r.at, ` + writeplan.ProvenanceColumns
	revisionFrom    = ` FROM revisions r LEFT JOIN versions v ON v.repo = r.repo AND v.version = r.version `
)

// revisionRow scans the revisionColumns of a row (and the content, when
// withContent) into one revision.
type revisionRow struct {
	r    server.Revision
	at   int64
	dest []any
}

func newRevisionRow(repo, key string, withContent bool) *revisionRow {
	row := &revisionRow{r: server.Revision{Repo: repo, Key: key}}
	r := &row.r
	row.dest = append([]any{&r.Version, &r.Op, &r.Checksum, &r.Size, &r.Author, &row.at}, writeplan.ProvenanceDest(&r.Provenance)...)
	if withContent {
		row.dest = append(row.dest, &r.Content)
	}
	return row
}

// scan reads one row and returns its revision.
func (row *revisionRow) scan(s interface{ Scan(...any) error }) (server.Revision, error) {
	if err := s.Scan(row.dest...); err != nil {
		return server.Revision{}, err
	}
	row.r.At = fromMicros(row.at)
	row.r.Provenance.Subject = row.r.Author
	return row.r, nil
}

// History lists a key's revisions, newest first; see server.Store.
func (db *DB) History(ctx context.Context, repo, key string, before int64, limit int) ([]server.Revision, error) {
	if limit <= 0 {
		limit = -1 // SQLite: no limit
	}
	rows, err := db.read.QueryContext(ctx, `SELECT `+revisionColumns+revisionFrom+`
		WHERE r.repo = ? AND r.key = ? AND (? = 0 OR r.version < ?) ORDER BY r.version DESC LIMIT ?`,
		repo, key, before, before, limit)
	if err != nil {
		return nil, wrap("read history", err)
	}
	defer rows.Close()
	revs := []server.Revision{}
	row := newRevisionRow(repo, key, false)
	for rows.Next() {
		r, err := row.scan(rows)
		if err != nil {
			return nil, wrap("read history", err)
		}
		revs = append(revs, r)
	}
	if err := rows.Err(); err != nil {
		return nil, wrap("read history", err)
	}
	if len(revs) == 0 {
		return revs, db.keyExisted(ctx, repo, key)
	}
	return revs, nil
}

// Histories lists the revisions of several keys, newest first; see
// server.Store. One range of the primary key per key.
func (db *DB) Histories(ctx context.Context, repo string, keys []string, before int64) (map[string][]server.Revision, error) {
	out := map[string][]server.Revision{}
	if len(keys) == 0 {
		return out, nil
	}
	asked, err := json.Marshal(keys)
	if err != nil {
		return nil, fmt.Errorf("read histories: %w", err)
	}
	rows, err := db.read.QueryContext(ctx, `SELECT key, version, op, checksum, size, author, at FROM revisions
		WHERE repo = ? AND key IN (SELECT value FROM json_each(?)) AND (? = 0 OR version < ?) ORDER BY key, version DESC`,
		repo, string(asked), before, before)
	if err != nil {
		return nil, wrap("read histories", err)
	}
	defer rows.Close()
	for rows.Next() {
		r := server.Revision{Repo: repo}
		var at int64
		if err := rows.Scan(&r.Key, &r.Version, &r.Op, &r.Checksum, &r.Size, &r.Author, &at); err != nil {
			return nil, wrap("read histories", err)
		}
		r.At = fromMicros(at)
		out[r.Key] = append(out[r.Key], r)
	}
	return out, wrap("read histories", rows.Err())
}

// keyExisted returns an error wrapping server.ErrNotFound unless key has
// at least one revision.
func (db *DB) keyExisted(ctx context.Context, repo, key string) error {
	var one int
	err := db.read.QueryRowContext(ctx, `SELECT 1 FROM revisions WHERE repo = ? AND key = ? LIMIT 1`, repo, key).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("history of %s in %s: %w", key, repo, server.ErrNotFound)
	}
	return wrap("read history", err)
}

// Revision reads one revision with its content; see server.Store.
func (db *DB) Revision(ctx context.Context, repo, key string, version int64) (server.Revision, error) {
	stmt := db.reads.revision
	if version == 0 {
		stmt = db.reads.newestRevision
	}
	r, err := newRevisionRow(repo, key, true).scan(stmt.QueryRowContext(ctx, repo, key, version))
	if errors.Is(err, sql.ErrNoRows) {
		return server.Revision{}, fmt.Errorf("revision %d of %s in %s: %w", version, key, repo, server.ErrNotFound)
	}
	if err != nil {
		return server.Revision{}, wrap("read revision", err)
	}
	return r, nil
}

// KeyRevisions hands visit a key's revisions oldest first, with content,
// in one read transaction; see server.Store.
func (db *DB) KeyRevisions(ctx context.Context, repo, key string, through int64, visit func(server.Revision) error) error {
	tx, err := db.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return wrap("begin key revisions", err)
	}
	defer tx.Rollback() //nolint:errcheck // read-only
	rows, err := tx.QueryContext(ctx, `SELECT `+revisionColumns+`, r.content`+revisionFrom+`
		WHERE r.repo = ? AND r.key = ? AND (? = 0 OR r.version <= ?) ORDER BY r.version`,
		repo, key, through, through)
	if err != nil {
		return wrap("read key revisions", err)
	}
	defer rows.Close()
	row, n := newRevisionRow(repo, key, true), 0
	for ; rows.Next(); n++ {
		r, err := row.scan(rows)
		if err != nil {
			return wrap("read key revisions", err)
		}
		if err := visit(r); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return wrap("read key revisions", err)
	}
	if n == 0 {
		return fmt.Errorf("revisions of %s in %s up to %d: %w", key, repo, through, server.ErrNotFound)
	}
	return nil
}

// The statements reading one revision (prepared with the read pool's
// others): at version ?3, or the newest (?3 is 0).
const (
	revisionAtSQL = `SELECT ` + revisionColumns + `, r.content` + revisionFrom + `
		WHERE r.repo = ?1 AND r.key = ?2 AND r.version = ?3`
	newestRevisionSQL = `SELECT ` + revisionColumns + `, r.content` + revisionFrom + `
		WHERE r.repo = ?1 AND r.key = ?2 AND ?3 = 0 ORDER BY r.version DESC LIMIT 1`
)
