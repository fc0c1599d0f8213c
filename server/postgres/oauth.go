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

var _ server.OAuthStore = (*DB)(nil)

// RegisterClient records a client registered by Dynamic Client
// Registration (server.OAuthStore).
func (db *DB) RegisterClient(ctx context.Context, c server.OAuthClient) error {
	uris, err := c.StoredRedirectURIs()
	if err != nil {
		return err
	}
	ctx, cancel := bounded(ctx)
	defer cancel()
	_, err = db.pool.Exec(ctx, `INSERT INTO oauth_clients (client_id, name, redirect_uris, created_at) VALUES ($1, $2, $3, $4)`,
		c.ID, c.Name, uris, c.CreatedAt)
	return wrap("register OAuth client", err)
}

// OAuthClient returns a registered client (server.OAuthStore).
func (db *DB) OAuthClient(ctx context.Context, id string) (server.OAuthClient, error) {
	ctx, cancel := bounded(ctx)
	defer cancel()
	c := server.OAuthClient{ID: id}
	var uris []byte
	err := db.pool.QueryRow(ctx, `SELECT name, redirect_uris, created_at FROM oauth_clients WHERE client_id = $1`, id).
		Scan(&c.Name, &uris, &c.CreatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return c, fmt.Errorf("OAuth client %.60q: %w", id, server.ErrNotFound)
	}
	if err != nil {
		return c, wrap("read OAuth client", err)
	}
	c.CreatedAt = c.CreatedAt.UTC()
	return c, json.Unmarshal(uris, &c.RedirectURIs)
}

// StartOAuthSession records a consented session and its code's hash
// (server.OAuthStore).
func (db *DB) StartOAuthSession(ctx context.Context, s server.OAuthSession, codeHash string) error {
	grants, err := s.StoredGrants()
	if err != nil {
		return err
	}
	ctx, cancel := bounded(ctx)
	defer cancel()
	return pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO oauth_sessions (session_id, subject, display_name, grants, client_id,
			client_name, redirect_uri, code_challenge, resource, parent, parent_expires, created_at, expires_at,
			last_used_at, code_hash, code_expires) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $12, $14, $15)`,
			s.ID, s.Subject, s.DisplayName, grants, s.ClientID, s.ClientName, s.RedirectURI, s.CodeChallenge,
			s.Resource, s.Parent, s.ParentExpires, s.CreatedAt, s.ExpiresAt, codeHash, s.CodeExpires)
		if err != nil {
			return wrap("start OAuth session", err)
		}
		return appendAuditTx(ctx, tx, []server.AuditRecord{server.AuditRecordOfSession(s)})
	})
}

const oauthSessionColumns = `session_id, subject, display_name, grants, client_id, client_name, redirect_uri,
	code_challenge, resource, parent, parent_expires, created_at, expires_at, last_used_at, code_expires`

// scanOAuthSession reads the oauthSessionColumns of row, then extra.
func scanOAuthSession(row pgx.Row, extra ...any) (server.OAuthSession, error) {
	var s server.OAuthSession
	var grants []byte
	if err := row.Scan(append([]any{&s.ID, &s.Subject, &s.DisplayName, &grants, &s.ClientID, &s.ClientName, &s.RedirectURI,
		&s.CodeChallenge, &s.Resource, &s.Parent, &s.ParentExpires, &s.CreatedAt, &s.ExpiresAt, &s.LastUsedAt, &s.CodeExpires}, extra...)...); err != nil {
		return s, err
	}
	for _, t := range []*time.Time{&s.ParentExpires, &s.CreatedAt, &s.ExpiresAt, &s.LastUsedAt, &s.CodeExpires} {
		*t = t.UTC()
	}
	return s, json.Unmarshal(grants, &s.Grants)
}

// oneUse runs a one-time use (a code's exchange, a refresh token's
// rotation) in a transaction: find locks the row that may be used and
// reports whether it was used before; a first use runs use, a second one
// revokes the session. The revocation commits although the use is refused
// (refused is then the error returned).
func (db *DB) oneUse(ctx context.Context, what string, refused error, find func(pgx.Tx) (id string, used bool, err error),
	use func(tx pgx.Tx, id string) error, now time.Time) (server.OAuthSession, error) {
	ctx, cancel := bounded(ctx)
	defer cancel()
	var s server.OAuthSession
	var outcome error
	err := pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		id, used, err := find(tx)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			outcome = fmt.Errorf("%s: %w", what, server.ErrNotFound)
			return nil
		case err != nil:
			return wrap(what, err)
		case used:
			outcome, s.ID = refused, id
			return endByServer(ctx, tx, id, refused.Error(), now)
		}
		if err := use(tx, id); err != nil {
			return wrap(what, err)
		}
		s, err = scanOAuthSession(tx.QueryRow(ctx, `UPDATE oauth_sessions SET last_used_at = $2 WHERE session_id = $1
			RETURNING `+oauthSessionColumns, id, now))
		return wrap("read OAuth session", err)
	})
	if err == nil {
		err = outcome
	}
	return s, err
}

// endByServer revokes the session id for why (its code or refresh token
// used again, say), recording that the server ended it.
func endByServer(ctx context.Context, tx pgx.Tx, id, why string, now time.Time) error {
	var subject string
	err := tx.QueryRow(ctx, `UPDATE oauth_sessions SET revoked_at = $2, ended_why = $3 WHERE session_id = $1 AND revoked_at IS NULL
		RETURNING subject`, id, now, why).Scan(&subject)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil
	}
	if err != nil {
		return wrap("revoke OAuth session", err)
	}
	rec := server.AuditRecordOfSessionEnd(server.ServerActor("oauth"), id, subject, why, now)
	return appendAuditTx(ctx, tx, []server.AuditRecord{rec})
}

// TakeCode exchanges an authorization code for its session once
// (server.OAuthStore); every replica sees the code used at once.
func (db *DB) TakeCode(ctx context.Context, codeHash, refreshHash string, now time.Time) (server.OAuthSession, error) {
	return db.oneUse(ctx, "exchange OAuth code", server.ErrCodeReused, func(tx pgx.Tx) (id string, used bool, err error) {
		err = tx.QueryRow(ctx, `SELECT session_id, code_used FROM oauth_sessions
			WHERE code_hash = $1 AND revoked_at IS NULL AND code_expires > $2 FOR UPDATE`, codeHash, now).Scan(&id, &used)
		return id, used, err
	}, func(tx pgx.Tx, id string) error {
		if _, err := tx.Exec(ctx, `UPDATE oauth_sessions SET code_used = true WHERE session_id = $1`, id); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO oauth_refresh_tokens (token_hash, session_id, issued_at) VALUES ($1, $2, $3)`,
			refreshHash, id, now)
		return err
	}, now)
}

// RotateRefresh replaces a refresh token by the next of its family
// (server.OAuthStore); every replica sees the rotation at once.
func (db *DB) RotateRefresh(ctx context.Context, oldHash, newHash string, now time.Time) (server.OAuthSession, error) {
	return db.oneUse(ctx, "rotate refresh token", server.ErrRefreshReused, func(tx pgx.Tx) (id string, used bool, err error) {
		err = tx.QueryRow(ctx, `SELECT t.session_id, t.used FROM oauth_refresh_tokens t
			JOIN oauth_sessions s USING (session_id)
			WHERE t.token_hash = $1 AND s.revoked_at IS NULL AND s.expires_at > $2 FOR UPDATE OF t`, oldHash, now).Scan(&id, &used)
		return id, used, err
	}, func(tx pgx.Tx, id string) error {
		if _, err := tx.Exec(ctx, `UPDATE oauth_refresh_tokens SET used = true WHERE token_hash = $1`, oldHash); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO oauth_refresh_tokens (token_hash, session_id, issued_at) VALUES ($1, $2, $3)`,
			newHash, id, now)
		return err
	}, now)
}

// RefreshSession returns the session of an unused refresh token
// (server.OAuthStore).
func (db *DB) RefreshSession(ctx context.Context, tokenHash string, now time.Time) (server.OAuthSession, error) {
	ctx, cancel := bounded(ctx)
	defer cancel()
	s, err := scanOAuthSession(db.pool.QueryRow(ctx, `SELECT `+oauthSessionColumns+` FROM oauth_sessions
		WHERE session_id = (SELECT session_id FROM oauth_refresh_tokens WHERE token_hash = $1 AND NOT used)
		AND revoked_at IS NULL AND expires_at > $2`, tokenHash, now))
	if errors.Is(err, pgx.ErrNoRows) {
		return s, fmt.Errorf("refresh token: %w", server.ErrNotFound)
	}
	return s, wrap("read OAuth session", err)
}

// OAuthSessions returns live sessions, most recently used first
// (server.OAuthStore).
func (db *DB) OAuthSessions(ctx context.Context, subject string, now time.Time) ([]server.OAuthSession, error) {
	return db.querySessions(ctx, false, `SELECT `+oauthSessionColumns+` FROM oauth_sessions
		WHERE (subject = $1 OR $1 = '') AND code_used AND revoked_at IS NULL AND expires_at > $2
		ORDER BY last_used_at DESC, session_id`, subject, now)
}

// EndedOAuthSessions returns the sessions ended since, most recently
// ended first (server.OAuthStore).
func (db *DB) EndedOAuthSessions(ctx context.Context, subject string, since time.Time) ([]server.OAuthSession, error) {
	return db.querySessions(ctx, true, `SELECT `+oauthSessionColumns+`, revoked_at, ended_why FROM oauth_sessions
		WHERE (subject = $1 OR $1 = '') AND code_used AND revoked_at >= $2
		ORDER BY revoked_at DESC, session_id LIMIT 50`, subject, since)
}

// querySessions reads the sessions query selects (then, when ended, their
// revoked_at and ended_why).
func (db *DB) querySessions(ctx context.Context, ended bool, query string, args ...any) ([]server.OAuthSession, error) {
	ctx, cancel := bounded(ctx)
	defer cancel()
	rows, err := db.pool.Query(ctx, query, args...)
	if err != nil {
		return nil, wrap("list OAuth sessions", err)
	}
	defer rows.Close()
	var out []server.OAuthSession
	for rows.Next() {
		var at time.Time
		var why string
		var extra []any
		if ended {
			extra = []any{&at, &why}
		}
		s, err := scanOAuthSession(rows, extra...)
		if err != nil {
			return nil, wrap("list OAuth sessions", err)
		}
		if ended {
			s.EndedAt, s.EndedWhy = at.UTC(), why
		}
		out = append(out, s)
	}
	return out, wrap("list OAuth sessions", rows.Err())
}

// EndOAuthSession ends a live session for why (server.OAuthStore).
func (db *DB) EndOAuthSession(ctx context.Context, id, why string, now time.Time) error {
	ctx, cancel := bounded(ctx)
	defer cancel()
	return pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		if err := endByServer(ctx, tx, id, why, now); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, forgetSignIns, now)
		return wrap("forget sign-ins", err)
	})
}

// RevokeOAuthSession revokes a live session (server.OAuthStore).
func (db *DB) RevokeOAuthSession(ctx context.Context, subject, id string, now time.Time) error {
	ctx, cancel := bounded(ctx)
	defer cancel()
	return pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		var of string
		err := tx.QueryRow(ctx, `UPDATE oauth_sessions SET revoked_at = $4
			WHERE session_id = $1 AND ($2 = '' OR subject = $2) AND revoked_at IS NULL AND expires_at > $3
			RETURNING subject`, id, subject, now, now).Scan(&of)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("OAuth session %.40q: %w", id, server.ErrNotFound)
		}
		if err != nil {
			return wrap("revoke OAuth session", err)
		}
		if _, err := tx.Exec(ctx, forgetSignIns, now); err != nil {
			return wrap("forget sign-ins", err)
		}
		rec := server.AuditRecordOfSessionEnd(server.AuditActorFrom(ctx), id, of, "", now)
		return appendAuditTx(ctx, tx, []server.AuditRecord{rec})
	})
}
