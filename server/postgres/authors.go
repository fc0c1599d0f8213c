package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// LastAuthors reads the author of each live entry's last revision; see
// server.Store.
func (db *DB) LastAuthors(ctx context.Context, repo string) (map[string]string, error) {
	ctx, cancel := bounded(ctx)
	defer cancel()
	rows, err := db.pool.Query(ctx, `SELECT e.key, r.author FROM entries e
		JOIN revisions r ON r.repo = e.repo AND r.key = e.key AND r.version = e.version
		WHERE e.repo = $1 AND NOT e.deleted`, repo)
	if err != nil {
		return nil, wrap("read authors", err)
	}
	authors := map[string]string{}
	var key, author string
	_, err = pgx.ForEachRow(rows, []any{&key, &author}, func() error {
		authors[key] = author
		return nil
	})
	if err != nil {
		return nil, wrap("read authors", err)
	}
	return authors, nil
}
