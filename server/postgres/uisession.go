package postgres

import (
	"context"

	"github.com/teammem/teammem/server"
)

var _ server.SessionStore = (*DB)(nil)

// EndSession records an ended web UI session, which every replica on the
// database refuses from its next page on, and forgets those expired
// (server.SessionStore).
func (db *DB) EndSession(ctx context.Context, s server.EndedSession) error {
	if err := s.Check(); err != nil {
		return err
	}
	ctx, cancel := bounded(ctx)
	defer cancel()
	_, err := db.pool.Exec(ctx, `WITH forgotten AS (DELETE FROM ended_sessions WHERE expires_at < $3)
		INSERT INTO ended_sessions (session_id, expires_at, ended_at) VALUES ($1, $2, $3)
		ON CONFLICT (session_id) DO NOTHING`, s.ID, s.Expires, s.At)
	return wrap("end web UI session", err)
}

// SessionEnded reports whether the web UI session id was ended
// (server.SessionStore).
func (db *DB) SessionEnded(ctx context.Context, id string) (bool, error) {
	ctx, cancel := bounded(ctx)
	defer cancel()
	var ended bool
	err := db.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM ended_sessions WHERE session_id = $1)`, id).Scan(&ended)
	return ended, wrap("read ended web UI sessions", err)
}
