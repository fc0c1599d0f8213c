package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/teammem/teammem/server/internal/searchtext"
)

// backfillBatch is how many entries one backfill transaction indexes at
// most (searchtext.BatchBytes bounds their content): a few milliseconds of
// the writer's time, so that clients' writes queued meanwhile wait no
// longer than behind a batch of their own.
const backfillBatch = 200

// backfillJob indexes the words of the next entries numbered by
// migration 13 (see its comment), newest first, in the writer's
// transaction, and moves search_backfill's cursor past them; done once
// there is none left. The entries written since are numbered below the
// first and indexed by their writes: the cursor never reaches them, nor
// the old row of an entry written again.
type backfillJob struct {
	serverJob
	done bool
}

func (j *backfillJob) run(ctx context.Context, b *batch) error {
	return b.inSavepoint(ctx, func() error {
		var cursor int64
		err := b.tx.QueryRowContext(ctx, `SELECT doc FROM search_backfill WHERE id = 1`).Scan(&cursor)
		if errors.Is(err, sql.ErrNoRows) {
			j.done = true
			return nil
		}
		if err != nil {
			return wrap("read search backfill", err)
		}
		index, more, err := backfillNext(ctx, b, cursor)
		if err != nil {
			return err
		}
		if !more {
			_, err = b.tx.ExecContext(ctx, `DELETE FROM search_backfill`)
			j.done = true
		} else {
			_, err = b.tx.ExecContext(ctx, `UPDATE search_backfill SET doc = ? WHERE id = 1`, index[len(index)-1].doc)
		}
		if err != nil {
			return wrap("save search backfill", err)
		}
		b.index = append(b.index, index...) // made at the batch's end, as a write's
		b.changed = true
		return nil
	})
}

// backfillNext reads the words of the entries numbered after cursor, in
// order: up to backfillBatch of them, as many as searchtext.BatchLen
// takes. more reports that entries are left after them.
func backfillNext(ctx context.Context, b *batch, cursor int64) (index []indexChange, more bool, err error) {
	rows, err := b.tx.QueryContext(ctx, `SELECT d.id, d.repo, d.key, e.version, e.size
		FROM search_docs d JOIN entries e ON e.repo = d.repo AND e.key = d.key
		WHERE d.id > ? ORDER BY d.id LIMIT ?`, cursor, backfillBatch)
	if err != nil {
		return nil, false, wrap("read search backfill", err)
	}
	var versions, sizes []int64
	for rows.Next() {
		var c indexChange
		var version, size int64
		if err := rows.Scan(&c.doc, &c.repo, &c.key, &version, &size); err != nil {
			_ = rows.Close()
			return nil, false, wrap("read search backfill", err)
		}
		index, versions, sizes = append(index, c), append(versions, version), append(sizes, size)
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return nil, false, wrap("read search backfill", err)
	}
	n := searchtext.BatchLen(sizes, backfillBatch)
	var read int64
	for i := range index[:n] {
		content, err := b.stmts.search.contentAt(ctx, index[i].repo, index[i].key, versions[i])
		if err != nil {
			return nil, false, err
		}
		index[i].e, read = searchtext.EntryOf(index[i].key, content), read+int64(len(content))
	}
	if n > 0 {
		b.w.db.indexBatches.Add(read)
	}
	return index[:n], n < len(index) || len(index) == backfillBatch, nil
}

// backfill indexes the entries numbered by migration 13, one writer
// batch at a time, until none is left or ctx ends. It runs from Open in
// its own goroutine; its error (the database failing) ends it and is
// returned by waitBackfill.
func (db *DB) backfill(ctx context.Context) error {
	var pending int
	if err := db.read.QueryRowContext(ctx, `SELECT count(*) FROM search_backfill`).Scan(&pending); err != nil {
		return fmt.Errorf("index entries for search: %w", wrap("read search backfill", err))
	}
	if pending == 0 { // nothing to index: the writer is not disturbed
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
