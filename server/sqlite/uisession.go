package sqlite

import (
	"context"
	"database/sql"

	"github.com/teammem/teammem/server"
)

var _ server.SessionStore = (*DB)(nil)

// EndSession records an ended web UI session and forgets those expired
// (server.SessionStore).
func (db *DB) EndSession(ctx context.Context, s server.EndedSession) error {
	if err := s.Check(); err != nil {
		return err
	}
	return db.exec(ctx, "end web UI session", func(ctx context.Context, tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM ended_sessions WHERE expires_at < ?`, micros(s.At)); err != nil {
			return wrap("forget expired web UI sessions", err)
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO ended_sessions (session_id, expires_at, ended_at) VALUES (?, ?, ?)
			ON CONFLICT (session_id) DO NOTHING`, s.ID, micros(s.Expires), micros(s.At))
		return wrap("end web UI session", err)
	})
}

// SessionEnded reports whether the web UI session id was ended
// (server.SessionStore).
func (db *DB) SessionEnded(ctx context.Context, id string) (bool, error) {
	var n int
	err := db.read.QueryRowContext(ctx, `SELECT count(*) FROM ended_sessions WHERE session_id = ?`, id).Scan(&n)
	return n > 0, wrap("read ended web UI sessions", err)
}
