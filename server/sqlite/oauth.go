package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

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
	return db.exec(ctx, "register OAuth client", func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO oauth_clients (client_id, name, redirect_uris, created_at) VALUES (?, ?, ?, ?)`,
			c.ID, c.Name, uris, micros(c.CreatedAt))
		return wrap("register OAuth client", err)
	})
}

// OAuthClient returns a registered client (server.OAuthStore).
func (db *DB) OAuthClient(ctx context.Context, id string) (server.OAuthClient, error) {
	c := server.OAuthClient{ID: id}
	var uris string
	var created int64
	err := db.read.QueryRowContext(ctx, `SELECT name, redirect_uris, created_at FROM oauth_clients WHERE client_id = ?`, id).
		Scan(&c.Name, &uris, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return c, fmt.Errorf("OAuth client %.60q: %w", id, server.ErrNotFound)
	}
	if err != nil {
		return c, wrap("read OAuth client", err)
	}
	c.CreatedAt = fromMicros(created)
	return c, json.Unmarshal([]byte(uris), &c.RedirectURIs)
}

// StartOAuthSession records a consented session and its code's hash
// (server.OAuthStore).
func (db *DB) StartOAuthSession(ctx context.Context, s server.OAuthSession, codeHash string) error {
	grants, err := s.StoredGrants()
	if err != nil {
		return err
	}
	return db.execBatch(ctx, "start OAuth session", func(ctx context.Context, b *batch) error {
		_, err := b.tx.ExecContext(ctx, `INSERT INTO oauth_sessions (session_id, subject, display_name, grants, client_id,
			client_name, redirect_uri, code_challenge, resource, parent, parent_expires, created_at, expires_at,
			last_used_at, code_hash, code_expires) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			s.ID, s.Subject, s.DisplayName, grants, s.ClientID, s.ClientName, s.RedirectURI, s.CodeChallenge,
			s.Resource, s.Parent, micros(s.ParentExpires), micros(s.CreatedAt), micros(s.ExpiresAt), micros(s.CreatedAt),
			codeHash, micros(s.CodeExpires))
		if err != nil {
			return wrap("start OAuth session", err)
		}
		return b.audit.append(ctx, []server.AuditRecord{server.AuditRecordOfSession(s)})
	})
}

// oauthSessionColumns are the columns scanOAuthSession reads.
const oauthSessionColumns = `session_id, subject, display_name, grants, client_id, client_name, redirect_uri,
	code_challenge, resource, parent, parent_expires, created_at, expires_at, last_used_at, code_expires`

// scanOAuthSession reads the oauthSessionColumns of row, then extra.
func scanOAuthSession(row interface{ Scan(...any) error }, extra ...any) (server.OAuthSession, error) {
	var s server.OAuthSession
	var grants string
	var pexp, created, exp, used, cexp int64
	if err := row.Scan(append([]any{&s.ID, &s.Subject, &s.DisplayName, &grants, &s.ClientID, &s.ClientName, &s.RedirectURI,
		&s.CodeChallenge, &s.Resource, &s.Parent, &pexp, &created, &exp, &used, &cexp}, extra...)...); err != nil {
		return s, err
	}
	s.ParentExpires, s.CreatedAt, s.ExpiresAt = fromMicros(pexp), fromMicros(created), fromMicros(exp)
	s.LastUsedAt, s.CodeExpires = fromMicros(used), fromMicros(cexp)
	return s, json.Unmarshal([]byte(grants), &s.Grants)
}

// oneUse runs a one-time use (a code's exchange, a refresh token's
// rotation) in one write: find reads the row that may be used (its
// session and whether it was used before); a first use runs use, a second
// one revokes the session. The revocation commits although the use is
// refused (refused is then the error returned, with the session's ID).
func (db *DB) oneUse(ctx context.Context, what string, refused error, find string, findArgs []any,
	use func(ctx context.Context, tx *sql.Tx, id string) error, now time.Time) (server.OAuthSession, error) {
	var s server.OAuthSession
	var outcome error
	err := db.execBatch(ctx, what, func(ctx context.Context, b *batch) error {
		tx := b.tx
		var used int
		var id string
		err := tx.QueryRowContext(ctx, find, findArgs...).Scan(&id, &used)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			outcome = fmt.Errorf("%s: %w", what, server.ErrNotFound)
			return nil
		case err != nil:
			return wrap(what, err)
		case used != 0:
			outcome, s.ID = refused, id
			return endByServer(ctx, b, id, refused.Error(), now)
		}
		if err := use(ctx, tx, id); err != nil {
			return wrap(what, err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE oauth_sessions SET last_used_at = ? WHERE session_id = ?`, micros(now), id); err != nil {
			return wrap(what, err)
		}
		s, err = scanOAuthSession(tx.QueryRowContext(ctx, `SELECT `+oauthSessionColumns+` FROM oauth_sessions WHERE session_id = ?`, id))
		return wrap("read OAuth session", err)
	})
	if err == nil {
		err = outcome
	}
	return s, err
}

// TakeCode exchanges an authorization code for its session once
// (server.OAuthStore).
func (db *DB) TakeCode(ctx context.Context, codeHash, refreshHash string, now time.Time) (server.OAuthSession, error) {
	return db.oneUse(ctx, "exchange OAuth code", server.ErrCodeReused, `SELECT session_id, code_used FROM oauth_sessions
		WHERE code_hash = ? AND revoked_at = 0 AND code_expires > ?`, []any{codeHash, micros(now)},
		func(ctx context.Context, tx *sql.Tx, id string) error {
			if _, err := tx.ExecContext(ctx, `UPDATE oauth_sessions SET code_used = 1 WHERE session_id = ?`, id); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, `INSERT INTO oauth_refresh_tokens (token_hash, session_id, issued_at) VALUES (?, ?, ?)`,
				refreshHash, id, micros(now))
			return err
		}, now)
}

// RotateRefresh replaces a refresh token by the next of its family
// (server.OAuthStore).
func (db *DB) RotateRefresh(ctx context.Context, oldHash, newHash string, now time.Time) (server.OAuthSession, error) {
	return db.oneUse(ctx, "rotate refresh token", server.ErrRefreshReused, `SELECT t.session_id, t.used FROM oauth_refresh_tokens t
		JOIN oauth_sessions s USING (session_id)
		WHERE t.token_hash = ? AND s.revoked_at = 0 AND s.expires_at > ?`, []any{oldHash, micros(now)},
		func(ctx context.Context, tx *sql.Tx, id string) error {
			if _, err := tx.ExecContext(ctx, `UPDATE oauth_refresh_tokens SET used = 1 WHERE token_hash = ?`, oldHash); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, `INSERT INTO oauth_refresh_tokens (token_hash, session_id, issued_at) VALUES (?, ?, ?)`,
				newHash, id, micros(now))
			return err
		}, now)
}

// RefreshSession returns the session of an unused refresh token
// (server.OAuthStore).
func (db *DB) RefreshSession(ctx context.Context, tokenHash string, now time.Time) (server.OAuthSession, error) {
	s, err := scanOAuthSession(db.read.QueryRowContext(ctx, `SELECT `+oauthSessionColumns+` FROM oauth_sessions
		WHERE session_id = (SELECT session_id FROM oauth_refresh_tokens WHERE token_hash = ? AND used = 0)
		AND revoked_at = 0 AND expires_at > ?`, tokenHash, micros(now)))
	if errors.Is(err, sql.ErrNoRows) {
		return s, fmt.Errorf("refresh token: %w", server.ErrNotFound)
	}
	return s, wrap("read OAuth session", err)
}

// endByServer revokes the session id for why (its code or refresh token
// used again, say), recording that the server ended it.
func endByServer(ctx context.Context, b *batch, id, why string, now time.Time) error {
	var subject string
	err := b.tx.QueryRowContext(ctx, `UPDATE oauth_sessions SET revoked_at = ?, ended_why = ? WHERE session_id = ? AND revoked_at = 0
		RETURNING subject`, micros(now), why, id).Scan(&subject)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return wrap("revoke OAuth session", err)
	}
	rec := server.AuditRecordOfSessionEnd(server.ServerActor("oauth"), id, subject, why, now)
	return b.audit.append(ctx, []server.AuditRecord{rec})
}

// OAuthSessions returns live sessions, most recently used first
// (server.OAuthStore).
func (db *DB) OAuthSessions(ctx context.Context, subject string, now time.Time) ([]server.OAuthSession, error) {
	return listOAuthSessions(ctx, db.read, subject, now)
}

// OAuthSessions reads the live sessions in the database file, beside a
// running server, as IssuedTokens does.
func (p TokensAt) OAuthSessions(ctx context.Context, subject string, now time.Time) ([]server.OAuthSession, error) {
	return readExisting(ctx, string(p), func(pool *sql.DB) ([]server.OAuthSession, error) {
		return listOAuthSessions(ctx, pool, subject, now)
	})
}

func listOAuthSessions(ctx context.Context, q *sql.DB, subject string, now time.Time) ([]server.OAuthSession, error) {
	return querySessions(ctx, q, false, `SELECT `+oauthSessionColumns+` FROM oauth_sessions
		WHERE (subject = ?1 OR ?1 = '') AND code_used = 1 AND revoked_at = 0 AND expires_at > ?2
		ORDER BY last_used_at DESC, session_id`, subject, micros(now))
}

// querySessions reads the sessions query selects (then, when ended, their
// revoked_at and ended_why).
func querySessions(ctx context.Context, q *sql.DB, ended bool, query string, args ...any) ([]server.OAuthSession, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, wrap("list OAuth sessions", err)
	}
	defer rows.Close()
	var out []server.OAuthSession
	for rows.Next() {
		var at int64
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
			s.EndedAt, s.EndedWhy = fromMicros(at), why
		}
		out = append(out, s)
	}
	return out, wrap("list OAuth sessions", rows.Err())
}

// EndedOAuthSessions returns the sessions ended since, most recently
// ended first (server.OAuthStore).
func (db *DB) EndedOAuthSessions(ctx context.Context, subject string, since time.Time) ([]server.OAuthSession, error) {
	return listEndedOAuthSessions(ctx, db.read, subject, since)
}

// EndedOAuthSessions reads the ended sessions in the database file,
// beside a running server, as IssuedTokens does.
func (p TokensAt) EndedOAuthSessions(ctx context.Context, subject string, since time.Time) ([]server.OAuthSession, error) {
	return readExisting(ctx, string(p), func(pool *sql.DB) ([]server.OAuthSession, error) {
		return listEndedOAuthSessions(ctx, pool, subject, since)
	})
}

func listEndedOAuthSessions(ctx context.Context, q *sql.DB, subject string, since time.Time) ([]server.OAuthSession, error) {
	return querySessions(ctx, q, true, `SELECT `+oauthSessionColumns+`, revoked_at, ended_why FROM oauth_sessions
		WHERE (subject = ?1 OR ?1 = '') AND code_used = 1 AND revoked_at >= ?2 AND revoked_at > 0
		ORDER BY revoked_at DESC, session_id LIMIT 50`, subject, micros(since))
}

// EndOAuthSession ends a live session for why (server.OAuthStore).
func (db *DB) EndOAuthSession(ctx context.Context, id, why string, now time.Time) error {
	return db.execBatch(ctx, "end OAuth session", func(ctx context.Context, b *batch) error {
		if err := endByServer(ctx, b, id, why, now); err != nil {
			return err
		}
		_, err := b.tx.ExecContext(ctx, forgetSignIns, micros(now))
		return wrap("forget sign-ins", err)
	})
}

// RevokeOAuthSession revokes a live session (server.OAuthStore).
func (db *DB) RevokeOAuthSession(ctx context.Context, subject, id string, now time.Time) error {
	by := server.AuditActorFrom(ctx) // the job runs in the writer's context
	return db.execBatch(ctx, "revoke OAuth session", func(ctx context.Context, b *batch) error {
		rec, err := revokeOAuthSession(ctx, b.tx, by, subject, id, now)
		if err != nil {
			return err
		}
		return b.audit.append(ctx, []server.AuditRecord{rec})
	})
}

// RevokeOAuthSession revokes a live session in the database file, beside
// a running server, as Revoke does.
func (p TokensAt) RevokeOAuthSession(ctx context.Context, subject, id string, now time.Time) error {
	return AuditAt(p).inTx(ctx, func(tx sqlExec) error {
		rec, err := revokeOAuthSession(ctx, tx, server.AuditActorFrom(ctx), subject, id, now)
		if err != nil {
			return err
		}
		return appendAudit(ctx, tx, []server.AuditRecord{rec})
	})
}

// revokeOAuthSession revokes the session and returns the audit record of
// its end by by.
func revokeOAuthSession(ctx context.Context, tx sqlExec, by server.AuditActor, subject, id string, now time.Time) (server.AuditRecord, error) {
	var of string
	err := tx.QueryRowContext(ctx, `UPDATE oauth_sessions SET revoked_at = ?
		WHERE session_id = ? AND (subject = ? OR ? = '') AND revoked_at = 0 AND expires_at > ?
		RETURNING subject`, micros(now), id, subject, subject, micros(now)).Scan(&of)
	if errors.Is(err, sql.ErrNoRows) {
		return server.AuditRecord{}, fmt.Errorf("OAuth session %.40q: %w", id, server.ErrNotFound)
	}
	if err != nil {
		return server.AuditRecord{}, wrap("revoke OAuth session", err)
	}
	if _, err := tx.ExecContext(ctx, forgetSignIns, micros(now)); err != nil {
		return server.AuditRecord{}, wrap("forget sign-ins", err)
	}
	return server.AuditRecordOfSessionEnd(by, id, of, "", now), nil
}
