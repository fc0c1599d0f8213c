package sqlite

import (
	"context"
)

// LastAuthors reads the author of each live entry's last revision; see
// server.Store.
func (db *DB) LastAuthors(ctx context.Context, repo string) (map[string]string, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT e.key, r.author FROM entries e
		JOIN revisions r ON r.repo = e.repo AND r.key = e.key AND r.version = e.version
		WHERE e.repo = ? AND e.deleted = 0`, repo)
	if err != nil {
		return nil, wrap("read authors", err)
	}
	defer rows.Close()
	authors := map[string]string{}
	for rows.Next() {
		var key, author string
		if err := rows.Scan(&key, &author); err != nil {
			return nil, wrap("read authors", err)
		}
		authors[key] = author
	}
	return authors, wrap("read authors", rows.Err())
}
