package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"github.com/teammem/teammem/memcore"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/internal/liveset"
)

// Apply performs one write atomically; see server.Store. Writers are
// serialised by the single write connection and BEGIN IMMEDIATE.
func (db *DB) Apply(ctx context.Context, w server.Write) (server.WriteResult, error) {
	return db.cache.Apply(ctx, db.begin, w)
}

func (db *DB) begin(ctx context.Context) (liveset.Tx, error) {
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return nil, wrap("begin write", err)
	}
	return &writeTx{tx: tx}, nil
}

// writeTx is one BEGIN IMMEDIATE transaction: the whole database is locked
// against other writers from its start.
type writeTx struct {
	tx *sql.Tx
}

func (t *writeTx) Lock(ctx context.Context, repo string) (server.RepoState, error) {
	st, _, err := readState(ctx, t.tx, repo)
	if errors.Is(err, server.ErrNotFound) {
		return liveset.EmptyState(repo), nil
	}
	return st, err
}

func (t *writeTx) Live(ctx context.Context, repo string, add func(string, liveset.Entry)) error {
	rows, err := t.tx.QueryContext(ctx,
		`SELECT key, checksum, size FROM entries WHERE repo = ? AND deleted = 0 ORDER BY key`, repo)
	if err != nil {
		return wrap("read live entries", err)
	}
	defer rows.Close()
	for rows.Next() {
		var key string
		var e liveset.Entry
		if err := rows.Scan(&key, &e.Checksum, &e.Size); err != nil {
			return wrap("read live entries", err)
		}
		add(key, e)
	}
	return wrap("read live entries", rows.Err())
}

func (t *writeTx) Save(ctx context.Context, p *liveset.Plan) error {
	at := micros(p.At)
	_, err := t.tx.ExecContext(ctx, `INSERT INTO repos (slug, version, checksum, entries, bytes, updated_at)
		VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (slug) DO UPDATE SET version = excluded.version, checksum = excluded.checksum,
			entries = excluded.entries, bytes = excluded.bytes, updated_at = excluded.updated_at`,
		p.Repo, p.Version, p.Checksum, p.Entries, p.Bytes, at)
	if err != nil {
		return wrap("save repository", err)
	}
	put, err := t.tx.PrepareContext(ctx, `INSERT INTO entries
		(repo, key, folded_key, checksum, size, version, updated_at, deleted, deleted_at, content)
		VALUES (?, ?, ?, ?, ?, ?, ?, 0, NULL, ?)
		ON CONFLICT (repo, key) DO UPDATE SET folded_key = excluded.folded_key, checksum = excluded.checksum,
			size = excluded.size, version = excluded.version, updated_at = excluded.updated_at,
			deleted = 0, deleted_at = NULL, content = excluded.content`)
	if err != nil {
		return wrap("save entries", err)
	}
	defer put.Close()
	del, err := t.tx.PrepareContext(ctx, `UPDATE entries
		SET deleted = 1, deleted_at = ?, version = ?, updated_at = ?, content = ''
		WHERE repo = ? AND key = ?`)
	if err != nil {
		return wrap("save entries", err)
	}
	defer del.Close()
	rev, err := t.tx.PrepareContext(ctx, `INSERT INTO revisions
		(repo, key, version, op, checksum, size, author, at, content) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return wrap("save revisions", err)
	}
	defer rev.Close()
	for _, c := range p.Changes {
		if c.Op == server.OpDelete {
			_, err = del.ExecContext(ctx, at, p.Version, at, p.Repo, c.Key)
		} else {
			_, err = put.ExecContext(ctx, p.Repo, c.Key, memcore.FoldKey(c.Key), c.Checksum, c.Size, p.Version, at, c.Content)
		}
		if err != nil {
			return wrap("save entry", err)
		}
		if _, err := rev.ExecContext(ctx, p.Repo, c.Key, p.Version, string(c.Op), c.Checksum, c.Size, p.Author, at, c.Content); err != nil {
			return wrap("save revision", err)
		}
	}
	return nil
}

func (t *writeTx) Commit(context.Context) error { return wrap("commit write", t.tx.Commit()) }

func (t *writeTx) Rollback(context.Context) error {
	if err := t.tx.Rollback(); err != nil && !errors.Is(err, sql.ErrTxDone) {
		return wrap("roll back write", err)
	}
	return nil
}
