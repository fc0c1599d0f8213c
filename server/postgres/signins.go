package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/teammem/teammem/server"
)

var _ server.SignInStore = (*DB)(nil)

// forgetSignIns deletes the sign-ins whose web session ended before now
// and from which no live OAuth session descends (nor one whose code may
// still be exchanged).
const forgetSignIns = `DELETE FROM oauth_signins g WHERE g.web_expires <= $1 AND NOT EXISTS (
	SELECT 1 FROM oauth_sessions s WHERE s.parent = 'signin:' || g.signin_id AND s.revoked_at IS NULL AND s.expires_at > $1
	AND (s.code_used OR s.code_expires > $1))`

// StartSignIn records a sign-in with the identity provider
// (server.SignInStore).
func (db *DB) StartSignIn(ctx context.Context, s server.SignIn) error {
	grants, err := s.StoredGrants()
	if err != nil {
		return err
	}
	ctx, cancel := bounded(ctx)
	defer cancel()
	return pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, forgetSignIns, s.CreatedAt); err != nil {
			return wrap("forget sign-ins", err)
		}
		_, err := tx.Exec(ctx, `INSERT INTO oauth_signins (signin_id, subject, grants, refresh_sealed, checked_at,
			web_expires, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
			s.ID, s.Subject, grants, s.Sealed, s.CheckedAt, s.WebExpires, s.CreatedAt)
		return wrap("start sign-in", err)
	})
}

const signInColumns = `signin_id, subject, grants, refresh_sealed, checked_at, web_expires, created_at`

func scanSignIn(row pgx.Row) (server.SignIn, error) {
	var s server.SignIn
	var grants []byte
	err := row.Scan(&s.ID, &s.Subject, &grants, &s.Sealed, &s.CheckedAt, &s.WebExpires, &s.CreatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return s, fmt.Errorf("sign-in: %w", server.ErrNotFound)
	}
	if err != nil {
		return s, wrap("read sign-in", err)
	}
	s.CheckedAt, s.WebExpires, s.CreatedAt = s.CheckedAt.UTC(), s.WebExpires.UTC(), s.CreatedAt.UTC()
	return s, json.Unmarshal(grants, &s.Grants)
}

// SignIn returns a sign-in (server.SignInStore).
func (db *DB) SignIn(ctx context.Context, id string) (server.SignIn, error) {
	ctx, cancel := bounded(ctx)
	defer cancel()
	return scanSignIn(db.pool.QueryRow(ctx, `SELECT `+signInColumns+` FROM oauth_signins WHERE signin_id = $1`, id))
}

// UpdateSignIn runs change with the sign-in's row locked, so that one
// replica at a time asks the provider with its refresh token
// (server.SignInStore).
func (db *DB) UpdateSignIn(ctx context.Context, id string, now time.Time, change func(server.SignIn) (server.SignInChange, error)) ([]string, error) {
	ctx, cancel := bounded(ctx)
	defer cancel()
	var revoked []string
	err := pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		cur, err := scanSignIn(tx.QueryRow(ctx, `SELECT `+signInColumns+` FROM oauth_signins WHERE signin_id = $1 FOR UPDATE`, id))
		if err != nil {
			return err
		}
		c, err := change(cur)
		if err != nil {
			return err
		}
		if c.Ended != "" {
			revoked, err = endSignIn(ctx, tx, id, c.Ended, now)
			return err
		}
		grants, err := c.SignIn.StoredGrants()
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE oauth_signins SET grants = $2, refresh_sealed = $3, checked_at = $4 WHERE signin_id = $1`,
			id, grants, c.SignIn.Sealed, c.SignIn.CheckedAt)
		return wrap("update sign-in", err)
	})
	return revoked, err
}

// endSignIn deletes the sign-in and revokes the live OAuth sessions
// consented from it, recording that the server ended each for why.
func endSignIn(ctx context.Context, tx pgx.Tx, id, why string, now time.Time) ([]string, error) {
	if _, err := tx.Exec(ctx, `DELETE FROM oauth_signins WHERE signin_id = $1`, id); err != nil {
		return nil, wrap("end sign-in", err)
	}
	rows, err := tx.Query(ctx, `UPDATE oauth_sessions SET revoked_at = $2, ended_why = $3
		WHERE parent = $1 AND revoked_at IS NULL AND expires_at > $2 RETURNING session_id, subject`, server.SignInCredential(id), now, why)
	if err != nil {
		return nil, wrap("end sign-in's sessions", err)
	}
	var ids []string
	var recs []server.AuditRecord
	for rows.Next() {
		var sid, subject string
		if err := rows.Scan(&sid, &subject); err != nil {
			return nil, wrap("end sign-in's sessions", err)
		}
		ids = append(ids, sid)
		recs = append(recs, server.AuditRecordOfSessionEnd(server.ServerActor("oauth"), sid, subject, why, now))
	}
	if err := rows.Err(); err != nil {
		return nil, wrap("end sign-in's sessions", err)
	}
	return ids, appendAuditTx(ctx, tx, recs)
}

// SignOutSignIn ends a sign-in's web session (server.SignInStore).
func (db *DB) SignOutSignIn(ctx context.Context, id string, now time.Time) error {
	ctx, cancel := bounded(ctx)
	defer cancel()
	return pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `UPDATE oauth_signins SET web_expires = $2 WHERE signin_id = $1 AND web_expires > $2`, id, now); err != nil {
			return wrap("sign out", err)
		}
		_, err := tx.Exec(ctx, forgetSignIns, now)
		return wrap("forget sign-ins", err)
	})
}
