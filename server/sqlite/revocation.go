package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/teammem/teammem/server"
)

var _ server.RevocationStore = (*DB)(nil)

// Revocations returns the recorded token revocations (server.RevocationReader).
func (db *DB) Revocations(ctx context.Context) ([]server.Revocation, error) {
	return readRevocations(ctx, db.read)
}

// Revoke records r (server.RevocationStore) through its own connection,
// as the command line does.
func (db *DB) Revoke(ctx context.Context, r server.Revocation) error {
	return TokensAt(db.path).Revoke(ctx, r)
}

// TokensAt is the server.RevocationStore and server.TokenRegistry of the
// database file at the path it holds, for the command line.
type TokensAt string

var _ server.RevocationStore = TokensAt("")

// Revoke records r in the database file. It does not take the
// store's lock, so it works while a server uses the file (which picks the
// revocation up at its next refresh): the revocation tables are not part
// of the repository state the server keeps in memory, and SQLite's own
// locking serialises this write with the server's. The file must exist
// and its schema be current; Revoke never creates or migrates it.
func (p TokensAt) Revoke(ctx context.Context, r server.Revocation) error {
	path := string(p)
	if err := r.Check(); err != nil {
		return err
	}
	at := micros(r.At)
	return AuditAt(p).inTx(ctx, func(tx sqlExec) error {
		var res sql.Result
		var err error
		if r.TokenID != "" {
			res, err = tx.ExecContext(ctx, `INSERT INTO revoked_tokens (token_id, revoked_at) VALUES (?, ?)
				ON CONFLICT (token_id) DO NOTHING`, r.TokenID, at)
		} else {
			res, err = tx.ExecContext(ctx, `INSERT INTO revoked_subjects (subject, issued_before, revoked_at) VALUES (?, ?, ?)
				ON CONFLICT (subject) DO UPDATE SET issued_before = excluded.issued_before, revoked_at = excluded.revoked_at
				WHERE excluded.issued_before > revoked_subjects.issued_before`, r.Subject, micros(r.Before), at)
		}
		if err != nil {
			return wrap("record token revocation in "+path, err)
		}
		return auditIfChanged(ctx, tx, res, server.AuditRecordOfRevocation(server.AuditActorFrom(ctx), r))
	})
}

// Revocations reads the revocations recorded in the database file,
// without the store's lock (see Revoke).
func (p TokensAt) Revocations(ctx context.Context) ([]server.Revocation, error) {
	return readExisting(ctx, string(p), func(pool *sql.DB) ([]server.Revocation, error) {
		return readRevocations(ctx, pool)
	})
}

// readExisting runs read with a pool on the existing database file at
// path (see openExisting), closed after it.
func readExisting[T any](ctx context.Context, path string, read func(*sql.DB) (T, error)) (T, error) {
	pool, err := openExisting(ctx, path)
	if err != nil {
		var zero T
		return zero, err
	}
	defer pool.Close()
	return read(pool)
}

// openExisting opens the existing database file at path for a command
// that runs beside (or without) the server, after checking its schema.
func openExisting(ctx context.Context, path string) (*sql.DB, error) {
	if err := checkPath(path); err != nil {
		return nil, err
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("no embedded database at %s: pass the server's --data-dir (or --database-url for Postgres); the server creates it on its first start", path)
	} else if err != nil {
		return nil, fmt.Errorf("open sqlite database: %w", err)
	}
	pool, err := openPool(ctx, "file:"+path+"?mode=rw&"+pragmas, 1)
	if err != nil {
		return nil, err
	}
	if err := checkSchemaOf(ctx, pool, path); err != nil {
		_ = pool.Close()
		return nil, err
	}
	return pool, nil
}

func readRevocations(ctx context.Context, q *sql.DB) ([]server.Revocation, error) {
	rows, err := q.QueryContext(ctx, `SELECT token_id, '', 0, revoked_at FROM revoked_tokens
		UNION ALL SELECT '', subject, issued_before, revoked_at FROM revoked_subjects`)
	if err != nil {
		return nil, wrap("read token revocations", err)
	}
	defer rows.Close()
	var out []server.Revocation
	for rows.Next() {
		var r server.Revocation
		var before, at int64
		if err := rows.Scan(&r.TokenID, &r.Subject, &before, &at); err != nil {
			return nil, wrap("read token revocations", err)
		}
		if r.Subject != "" {
			r.Before = time.UnixMicro(before).UTC()
		}
		r.At = time.UnixMicro(at).UTC()
		out = append(out, r)
	}
	return out, wrap("read token revocations", rows.Err())
}
