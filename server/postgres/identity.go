package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// readServerID reads the database's identity (migration 4).
func (db *DB) readServerID(ctx context.Context) error {
	err := db.pool.QueryRow(ctx, `SELECT id FROM server_identity WHERE only_row`).Scan(&db.id)
	return wrap("read the server identity", err)
}

// ServerID returns the database's identity, read when it was opened; see
// server.Store.
func (db *DB) ServerID() string { return db.id }

// SeenChecksums looks up each key's revisions for its checksum, in one
// query; see server.Store.
func (db *DB) SeenChecksums(ctx context.Context, repo string, want map[string]string) (map[string]int64, error) {
	ctx, cancel := bounded(ctx)
	defer cancel()
	keys := make([]string, 0, len(want))
	sums := make([]string, 0, len(want))
	for k, c := range want {
		keys, sums = append(keys, k), append(sums, c)
	}
	rows, err := db.pool.Query(ctx, `SELECT w.key, max(r.version) FROM unnest($2::text[], $3::text[]) AS w (key, checksum)
		JOIN revisions r ON r.repo = $1 AND r.key = w.key COLLATE "C" AND r.checksum = w.checksum
		GROUP BY w.key`, repo, keys, sums)
	if err != nil {
		return nil, wrap("look up checksums", err)
	}
	seen := map[string]int64{}
	var key string
	var version int64
	_, err = pgx.ForEachRow(rows, []any{&key, &version}, func() error {
		seen[key] = version
		return nil
	})
	if err != nil {
		return nil, wrap("look up checksums", err)
	}
	return seen, nil
}
