package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/teammem/teammem/server/internal/searchtext"
)

// backfillBatch is how many entries one backfill transaction indexes: a
// few milliseconds of the writer's time, so that clients' writes queued
// meanwhile wait no longer than behind a batch of their own.
const backfillBatch = 200

// backfillJob indexes the next entries written before migration 8 (see
// its comment), in the writer's transaction, and moves search_backfill's
// cursor past them; done once there is none left.
type backfillJob struct {
	serverJob
	done bool
}

func (j *backfillJob) run(ctx context.Context, b *batch) error {
	return b.inSavepoint(ctx, func() error {
		var repo, key string
		err := b.tx.QueryRowContext(ctx, `SELECT repo, key FROM search_backfill WHERE id = 1`).Scan(&repo, &key)
		if errors.Is(err, sql.ErrNoRows) {
			j.done = true
			return nil
		}
		if err != nil {
			return wrap("read search backfill", err)
		}
		type entry struct{ repo, key, content string }
		var batch []entry
		rows, err := b.tx.QueryContext(ctx, `SELECT e.repo, e.key, coalesce(r.content, '')
			FROM entries e JOIN revisions r ON r.repo = e.repo AND r.key = e.key AND r.version = e.version
			WHERE e.deleted = 0 AND (e.repo, e.key) > (?, ?) ORDER BY e.repo, e.key LIMIT ?`, repo, key, backfillBatch)
		if err != nil {
			return wrap("read search backfill", err)
		}
		for rows.Next() {
			var e entry
			if err := rows.Scan(&e.repo, &e.key, &e.content); err != nil {
				_ = rows.Close()
				return wrap("read search backfill", err)
			}
			batch = append(batch, e)
		}
		if err := errors.Join(rows.Err(), rows.Close()); err != nil {
			return wrap("read search backfill", err)
		}
		index := make([]indexChange, len(batch))
		for i, e := range batch {
			index[i] = indexChange{repo: e.repo, key: e.key, e: searchtext.EntryOf(e.key, e.content)}
		}
		if len(batch) < backfillBatch {
			_, err = b.tx.ExecContext(ctx, `DELETE FROM search_backfill`)
			j.done = true
		} else {
			last := batch[len(batch)-1]
			_, err = b.tx.ExecContext(ctx, `UPDATE search_backfill SET repo = ?, key = ? WHERE id = 1`, last.repo, last.key)
		}
		if err != nil {
			return wrap("save search backfill", err)
		}
		b.index = append(b.index, index...) // made at the batch's end, as a write's
		b.changed = true
		return nil
	})
}

// backfill indexes the entries written before migration 8, one writer
// batch at a time, until none is left or ctx ends. It runs from Open in
// its own goroutine; its error (the database failing) ends it and is
// returned by waitBackfill.
func (db *DB) backfill(ctx context.Context) error {
	var pending int
	if err := db.read.QueryRowContext(ctx, `SELECT count(*) FROM search_backfill`).Scan(&pending); err != nil {
		return fmt.Errorf("index entries for search: %w", wrap("read search backfill", err))
	}
	if pending == 0 { // nothing written before migration 8: the writer is not disturbed
		return nil
	}
	for {
		j := &backfillJob{serverJob: newServerJob(ctx)}
		if err := db.writer.submit(ctx, j, j.finished); err != nil {
			return fmt.Errorf("index entries for search: %w", err)
		}
		if j.err != nil {
			return fmt.Errorf("index entries for search: %w", j.err)
		}
		if j.done {
			return nil
		}
	}
}
