package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/teammem/teammem/server"
)

// History lists a key's revisions, newest first; see server.Store.
func (db *DB) History(ctx context.Context, repo, key string, before int64, limit int) ([]server.Revision, error) {
	if limit <= 0 {
		limit = -1 // SQLite: no limit
	}
	rows, err := db.read.QueryContext(ctx, `SELECT version, op, checksum, size, author, at FROM revisions
		WHERE repo = ? AND key = ? AND (? = 0 OR version < ?) ORDER BY version DESC LIMIT ?`,
		repo, key, before, before, limit)
	if err != nil {
		return nil, wrap("read history", err)
	}
	defer rows.Close()
	revs := []server.Revision{}
	for rows.Next() {
		r := server.Revision{Repo: repo, Key: key}
		var at int64
		if err := rows.Scan(&r.Version, &r.Op, &r.Checksum, &r.Size, &r.Author, &at); err != nil {
			return nil, wrap("read history", err)
		}
		r.At = fromMicros(at)
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
	r := server.Revision{Repo: repo, Key: key, Version: version}
	var at int64
	stmt := db.reads.revision
	if version == 0 {
		stmt = db.reads.newestRevision
	}
	err := stmt.QueryRowContext(ctx, repo, key, version).
		Scan(&r.Version, &r.Op, &r.Checksum, &r.Size, &r.Author, &at, &r.Content)
	if errors.Is(err, sql.ErrNoRows) {
		return server.Revision{}, fmt.Errorf("revision %d of %s in %s: %w", version, key, repo, server.ErrNotFound)
	}
	if err != nil {
		return server.Revision{}, wrap("read revision", err)
	}
	r.At = fromMicros(at)
	return r, nil
}

// The statements reading one revision (prepared with the read pool's
// others): at version ?3, or the newest (?3 is 0).
const (
	revisionAtSQL = `SELECT version, op, checksum, size, author, at, content FROM revisions
		WHERE repo = ?1 AND key = ?2 AND version = ?3`
	newestRevisionSQL = `SELECT version, op, checksum, size, author, at, content FROM revisions
		WHERE repo = ?1 AND key = ?2 AND ?3 = 0 ORDER BY version DESC LIMIT 1`
)
