package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/teammem/teammem/server"
)

var _ server.RevocationStore = (*DB)(nil)

// Revocations returns the recorded token revocations (server.RevocationReader).
func (db *DB) Revocations(ctx context.Context) ([]server.Revocation, error) {
	ctx, cancel := bounded(ctx)
	defer cancel()
	rows, err := db.pool.Query(ctx, `SELECT token_id, '', NULL::timestamptz, revoked_at FROM revoked_tokens
		UNION ALL SELECT '', subject, issued_before, revoked_at FROM revoked_subjects`)
	if err != nil {
		return nil, wrap("read token revocations", err)
	}
	defer rows.Close()
	var out []server.Revocation
	for rows.Next() {
		var r server.Revocation
		var before *time.Time
		if err := rows.Scan(&r.TokenID, &r.Subject, &before, &r.At); err != nil {
			return nil, wrap("read token revocations", err)
		}
		if before != nil {
			r.Before = before.UTC()
		}
		r.At = r.At.UTC()
		out = append(out, r)
	}
	return out, wrap("read token revocations", rows.Err())
}

// Revoke records r; every replica on the database honours it at its next
// refresh. Revoking a token id twice changes nothing; a subject's
// revocation only ever moves its time later.
func (db *DB) Revoke(ctx context.Context, r server.Revocation) error {
	if err := r.Check(); err != nil {
		return err
	}
	ctx, cancel := bounded(ctx)
	defer cancel()
	return pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		var tag pgconn.CommandTag
		var err error
		if r.TokenID != "" {
			tag, err = tx.Exec(ctx, `INSERT INTO revoked_tokens (token_id, revoked_at) VALUES ($1, $2)
				ON CONFLICT (token_id) DO NOTHING`, r.TokenID, r.At)
		} else {
			tag, err = tx.Exec(ctx, `INSERT INTO revoked_subjects (subject, issued_before, revoked_at) VALUES ($1, $2, $3)
				ON CONFLICT (subject) DO UPDATE SET issued_before = excluded.issued_before, revoked_at = excluded.revoked_at
				WHERE excluded.issued_before > revoked_subjects.issued_before`, r.Subject, r.Before, r.At)
		}
		if err != nil {
			return wrap("record token revocation", err)
		}
		return auditIfChanged(ctx, tx, tag, server.AuditRecordOfRevocation(server.AuditActorFrom(ctx), r))
	})
}
