package sqlite

import (
	"context"
	"encoding/json"
	"fmt"
)

// readServerID reads the database's identity (migration 6).
func (db *DB) readServerID(ctx context.Context) error {
	err := db.read.QueryRowContext(ctx, `SELECT id FROM server_identity WHERE only_row = 1`).Scan(&db.id)
	if err != nil {
		return wrap("read the server identity", err)
	}
	return nil
}

// ServerID returns the database's identity, read when it was opened; see
// server.Store.
func (db *DB) ServerID() string { return db.id }

// SeenChecksums looks up each key's revisions for its checksum, in one
// query; see server.Store.
func (db *DB) SeenChecksums(ctx context.Context, repo string, want map[string]string) (map[string]int64, error) {
	asked, err := json.Marshal(want)
	if err != nil {
		return nil, fmt.Errorf("look up checksums: %w", err)
	}
	rows, err := db.read.QueryContext(ctx, `SELECT w.key, max(r.version) FROM json_each(?) w
		JOIN revisions r ON r.repo = ? AND r.key = w.key AND r.checksum = w.value
		GROUP BY w.key`, string(asked), repo)
	if err != nil {
		return nil, wrap("look up checksums", err)
	}
	defer rows.Close()
	seen := map[string]int64{}
	for rows.Next() {
		var key string
		var version int64
		if err := rows.Scan(&key, &version); err != nil {
			return nil, wrap("look up checksums", err)
		}
		seen[key] = version
	}
	return seen, wrap("look up checksums", rows.Err())
}
