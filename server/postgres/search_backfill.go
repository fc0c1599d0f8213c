package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// backfillBatch is how many entries of one repository one backfill
// transaction indexes while it holds the repository's row lock.
const backfillBatch = 200

// backfillRetry is how long a replica waits while another one runs a
// backfill batch.
const backfillRetry = time.Second

// backfill indexes the entries written before migration 6 (see its
// comment), one batch per transaction, until none is left or ctx ends.
// Every replica runs it; the search_backfill row, locked by the replica
// running a batch (the others skip it and wait), makes them take turns.
func (db *DB) backfill(ctx context.Context) error {
	for {
		done, busy, err := db.backfillStep(ctx)
		switch {
		case err != nil:
			return fmt.Errorf("index entries for search: %w", err)
		case done:
			return nil
		case busy:
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(backfillRetry):
			}
		}
	}
}

// backfillStep indexes the next batch: done when there was none left,
// busy when another replica holds the cursor.
func (db *DB) backfillStep(ctx context.Context) (done, busy bool, err error) {
	ctx, cancel := bounded(ctx)
	defer cancel()
	err = pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		var repo, key string
		err := tx.QueryRow(ctx, `SELECT repo, key FROM search_backfill WHERE id = 1 FOR UPDATE SKIP LOCKED`).Scan(&repo, &key)
		if errors.Is(err, pgx.ErrNoRows) {
			var n int
			if err := tx.QueryRow(ctx, `SELECT count(*) FROM search_backfill`).Scan(&n); err != nil {
				return err
			}
			done, busy = n == 0, n > 0
			return nil
		}
		if err != nil {
			return err
		}
		var next string
		err = tx.QueryRow(ctx, `SELECT repo FROM entries WHERE (repo, key) > ($1, $2) AND NOT deleted
			ORDER BY repo, key LIMIT 1`, repo, key).Scan(&next)
		if errors.Is(err, pgx.ErrNoRows) {
			done = true
			_, err = tx.Exec(ctx, `DELETE FROM search_backfill`)
			return err
		}
		if err != nil {
			return err
		}
		if next != repo {
			key = ""
		}
		last, err := db.backfillRepo(ctx, tx, next, key)
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE search_backfill SET repo = $1, key = $2`, next, last)
		return err
	})
	return done, busy, wrap("backfill search", err)
}

// backfillRepo indexes the next live entries of repo after key, as many as
// searchtext.BatchLen takes of backfillBatch, under the repository's row
// lock (writers of the repository wait meanwhile, as behind another
// writer) and returns the last key indexed.
func (db *DB) backfillRepo(ctx context.Context, tx pgx.Tx, repo, after string) (string, error) {
	if _, err := tx.Exec(ctx, lockRepoRow, repo); err != nil {
		return "", err
	}
	keys, _, err := batchKeys(ctx, tx, backfillBatch, `SELECT key, size FROM entries WHERE repo = $1 AND key > $2 AND NOT deleted
		ORDER BY key LIMIT $3`, repo, after, backfillBatch)
	if err != nil || len(keys) == 0 {
		return after, err
	}
	last := keys[len(keys)-1]
	ents, err := db.readIndexed(ctx, tx, `SELECT key, false, content FROM entries
		WHERE repo = $1 AND key > $2 AND key <= $3 AND NOT deleted ORDER BY key`, repo, after, last)
	if err != nil {
		return "", err
	}
	b := &pgx.Batch{}
	queueIndex(b, repo, ents)
	return last, tx.SendBatch(ctx, b).Close()
}
