package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"

	"github.com/teammem/teammem/server"
)

var (
	_ server.TokenRegistry = (*DB)(nil)
	_ server.TokenRegistry = TokensAt("")
)

// RecordToken records t (server.TokenRegistry) through its own
// connection, as the command line does.
func (db *DB) RecordToken(ctx context.Context, t server.IssuedToken) error {
	return TokensAt(db.path).RecordToken(ctx, t)
}

// IssuedTokens returns the records of the issued tokens (server.TokenRegistry).
func (db *DB) IssuedTokens(ctx context.Context) ([]server.IssuedToken, error) {
	return readIssuedTokens(ctx, db.read)
}

// RecordToken records t in the database file, beside a running server
// like Revoke (see there).
func (p TokensAt) RecordToken(ctx context.Context, t server.IssuedToken) error {
	if err := t.Check(); err != nil {
		return err
	}
	grants, err := json.Marshal(t.Grants)
	if err != nil {
		return err
	}
	return AuditAt(p).inTx(ctx, func(tx sqlExec) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO issued_tokens (token_id, subject, grants, issued_at, expires_at)
			VALUES (?, ?, ?, ?, ?) ON CONFLICT (token_id) DO NOTHING`,
			t.ID, t.Subject, string(grants), micros(t.IssuedAt), micros(t.ExpiresAt))
		if err != nil {
			return wrap("record issued token in "+string(p), err)
		}
		return auditIfChanged(ctx, tx, res, server.AuditRecordOfToken(server.AuditActorFrom(ctx), t))
	})
}

// IssuedTokens reads the records of the issued tokens in the database
// file, without the store's lock.
func (p TokensAt) IssuedTokens(ctx context.Context) ([]server.IssuedToken, error) {
	return readExisting(ctx, string(p), func(pool *sql.DB) ([]server.IssuedToken, error) {
		return readIssuedTokens(ctx, pool)
	})
}

func readIssuedTokens(ctx context.Context, q *sql.DB) ([]server.IssuedToken, error) {
	rows, err := q.QueryContext(ctx, `SELECT token_id, subject, grants, issued_at, expires_at
		FROM issued_tokens ORDER BY issued_at, token_id`)
	if err != nil {
		return nil, wrap("read issued tokens", err)
	}
	defer rows.Close()
	var out []server.IssuedToken
	for rows.Next() {
		var t server.IssuedToken
		var grants string
		var issued, expires int64
		if err := rows.Scan(&t.ID, &t.Subject, &grants, &issued, &expires); err != nil {
			return nil, wrap("read issued tokens", err)
		}
		if err := json.Unmarshal([]byte(grants), &t.Grants); err != nil {
			return nil, wrap("read issued tokens", err)
		}
		t.IssuedAt, t.ExpiresAt = time.UnixMicro(issued).UTC(), time.UnixMicro(expires).UTC()
		out = append(out, t)
	}
	return out, wrap("read issued tokens", rows.Err())
}
