package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/teammem/teammem/server"
)

var _ server.TokenRegistry = (*DB)(nil)

// RecordToken records t (server.TokenRegistry); recording an id again
// changes nothing.
func (db *DB) RecordToken(ctx context.Context, t server.IssuedToken) error {
	if err := t.Check(); err != nil {
		return err
	}
	ctx, cancel := bounded(ctx)
	defer cancel()
	return pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `INSERT INTO issued_tokens (token_id, subject, grants, issued_at, expires_at)
			VALUES ($1, $2, $3, $4, $5) ON CONFLICT (token_id) DO NOTHING`,
			t.ID, t.Subject, t.Grants, t.IssuedAt, t.ExpiresAt)
		if err != nil {
			return wrap("record issued token", err)
		}
		return auditIfChanged(ctx, tx, tag, server.AuditRecordOfToken(server.AuditActorFrom(ctx), t))
	})
}

// IssuedTokens returns the records of the issued tokens, oldest first.
func (db *DB) IssuedTokens(ctx context.Context) ([]server.IssuedToken, error) {
	ctx, cancel := bounded(ctx)
	defer cancel()
	rows, err := db.pool.Query(ctx, `SELECT token_id, subject, grants, issued_at, expires_at
		FROM issued_tokens ORDER BY issued_at, token_id`)
	if err != nil {
		return nil, wrap("read issued tokens", err)
	}
	defer rows.Close()
	var out []server.IssuedToken
	for rows.Next() {
		var t server.IssuedToken
		if err := rows.Scan(&t.ID, &t.Subject, &t.Grants, &t.IssuedAt, &t.ExpiresAt); err != nil {
			return nil, wrap("read issued tokens", err)
		}
		t.IssuedAt, t.ExpiresAt = t.IssuedAt.UTC(), t.ExpiresAt.UTC()
		out = append(out, t)
	}
	return out, wrap("read issued tokens", rows.Err())
}
