package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/teammem/teammem/server"
)

var _ server.SignInStore = (*DB)(nil)

// forgetSignIns deletes the sign-ins whose web session ended before now
// and from which no live OAuth session descends (nor one whose code may
// still be exchanged).
const forgetSignIns = `DELETE FROM oauth_signins WHERE web_expires <= ?1 AND NOT EXISTS (
	SELECT 1 FROM oauth_sessions s WHERE s.parent = 'signin:' || oauth_signins.signin_id AND s.revoked_at = 0 AND s.expires_at > ?1
	AND (s.code_used = 1 OR s.code_expires > ?1))`

// StartSignIn records a sign-in with the identity provider
// (server.SignInStore).
func (db *DB) StartSignIn(ctx context.Context, s server.SignIn) error {
	grants, err := s.StoredGrants()
	if err != nil {
		return err
	}
	return db.exec(ctx, "start sign-in", func(ctx context.Context, tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, forgetSignIns, micros(s.CreatedAt)); err != nil {
			return wrap("forget sign-ins", err)
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO oauth_signins (signin_id, subject, grants, refresh_sealed, checked_at,
			web_expires, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			s.ID, s.Subject, grants, s.Sealed, micros(s.CheckedAt), micros(s.WebExpires), micros(s.CreatedAt))
		return wrap("start sign-in", err)
	})
}

// SignIn returns a sign-in (server.SignInStore).
func (db *DB) SignIn(ctx context.Context, id string) (server.SignIn, error) {
	s := server.SignIn{ID: id}
	var grants string
	var checked, web, created int64
	err := db.read.QueryRowContext(ctx, `SELECT subject, grants, refresh_sealed, checked_at, web_expires, created_at
		FROM oauth_signins WHERE signin_id = ?`, id).Scan(&s.Subject, &grants, &s.Sealed, &checked, &web, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return s, fmt.Errorf("sign-in: %w", server.ErrNotFound)
	}
	if err != nil {
		return s, wrap("read sign-in", err)
	}
	s.CheckedAt, s.WebExpires, s.CreatedAt = fromMicros(checked), fromMicros(web), fromMicros(created)
	return s, json.Unmarshal([]byte(grants), &s.Grants)
}

// signInLocks serialize the updates of each sign-in: the database file is
// one process's (a file lock), so a lock in the process is enough, and the
// provider is asked without holding up the writer.
var signInLocks keyedLocks

// UpdateSignIn runs change with the sign-in locked in the process, so that
// one refresh at a time spends the provider's refresh token
// (server.SignInStore).
func (db *DB) UpdateSignIn(ctx context.Context, id string, now time.Time, change func(server.SignIn) (server.SignInChange, error)) ([]string, error) {
	unlock := signInLocks.lock(id)
	defer unlock()
	cur, err := db.SignIn(ctx, id)
	if err != nil {
		return nil, err
	}
	c, err := change(cur)
	if err != nil {
		return nil, err
	}
	if c.Ended != "" {
		var revoked []string
		err := db.execBatch(ctx, "end sign-in", func(ctx context.Context, b *batch) error {
			var recs []server.AuditRecord
			var err error
			revoked, recs, err = endSignIn(ctx, b.tx, id, c.Ended, now)
			if err != nil {
				return err
			}
			return b.audit.append(ctx, recs)
		})
		return revoked, err
	}
	grants, err := c.SignIn.StoredGrants()
	if err != nil {
		return nil, err
	}
	return nil, db.exec(ctx, "update sign-in", func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE oauth_signins SET grants = ?, refresh_sealed = ?, checked_at = ? WHERE signin_id = ?`,
			grants, c.SignIn.Sealed, micros(c.SignIn.CheckedAt), id)
		return wrap("update sign-in", err)
	})
}

// endSignIn deletes the sign-in and revokes the live OAuth sessions
// consented from it, and returns their ids and the audit records of the
// server ending each for why.
func endSignIn(ctx context.Context, tx *sql.Tx, id, why string, now time.Time) ([]string, []server.AuditRecord, error) {
	if _, err := tx.ExecContext(ctx, `DELETE FROM oauth_signins WHERE signin_id = ?`, id); err != nil {
		return nil, nil, wrap("end sign-in", err)
	}
	rows, err := tx.QueryContext(ctx, `UPDATE oauth_sessions SET revoked_at = ?2, ended_why = ?3
		WHERE parent = ?1 AND revoked_at = 0 AND expires_at > ?2 RETURNING session_id, subject`, server.SignInCredential(id), micros(now), why)
	if err != nil {
		return nil, nil, wrap("end sign-in's sessions", err)
	}
	defer rows.Close()
	var ids []string
	var recs []server.AuditRecord
	for rows.Next() {
		var sid, subject string
		if err := rows.Scan(&sid, &subject); err != nil {
			return nil, nil, wrap("end sign-in's sessions", err)
		}
		ids = append(ids, sid)
		recs = append(recs, server.AuditRecordOfSessionEnd(server.ServerActor("oauth"), sid, subject, why, now))
	}
	return ids, recs, wrap("end sign-in's sessions", rows.Err())
}

// SignOutSignIn ends a sign-in's web session (server.SignInStore).
func (db *DB) SignOutSignIn(ctx context.Context, id string, now time.Time) error {
	return db.exec(ctx, "sign out", func(ctx context.Context, tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE oauth_signins SET web_expires = ?2 WHERE signin_id = ?1 AND web_expires > ?2`,
			id, micros(now)); err != nil {
			return wrap("sign out", err)
		}
		_, err := tx.ExecContext(ctx, forgetSignIns, micros(now))
		return wrap("forget sign-ins", err)
	})
}

// keyedLocks are mutexes by key, each kept while someone holds or awaits it.
type keyedLocks struct {
	mu    sync.Mutex
	locks map[string]*keyedLock
}

type keyedLock struct {
	sync.Mutex
	users int
}

// lock locks key and returns its unlock.
func (k *keyedLocks) lock(key string) func() {
	k.mu.Lock()
	if k.locks == nil {
		k.locks = map[string]*keyedLock{}
	}
	l := k.locks[key]
	if l == nil {
		l = &keyedLock{}
		k.locks[key] = l
	}
	l.users++
	k.mu.Unlock()
	l.Lock()
	return func() {
		l.Unlock()
		k.mu.Lock()
		if l.users--; l.users == 0 {
			delete(k.locks, key)
		}
		k.mu.Unlock()
	}
}
