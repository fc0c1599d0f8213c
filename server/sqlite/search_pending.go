package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/teammem/teammem/server/internal/searchtext"
)

// A write marks the keys it changes in search_pending (migration 12), in
// its transaction, instead of indexing them: FTS5's work for a put (its
// tokeniser, the segment it flushes at every commit, the tombstone of the
// row it replaces) is a large share of a put's cost, spent on text most
// puts replace again before anyone searches. The marked keys
// are indexed, with their content at that moment, by indexPending:
//   - before every search, in the writer's queue behind every write
//     acknowledged before the search began, so a search sees them all;
//   - once writes pause (see merger), and as soon as maxPending keys wait,
//     so the first search after a burst does a bounded amount of work.
// Marks are rows: a crash loses none, and Open counts them.

// pendingBatch is how many marked keys one writer transaction indexes at
// most; searchtext.BatchBytes bounds the content it reads.
const pendingBatch = 200

// maxPending is how many keys may wait before the merger indexes them
// without waiting for writes to pause: a burst that rewrites up to this
// many keys indexes each of them once after it, not once per write, and
// the first search in or right after a longer burst indexes at most this
// many (in jobs of pendingBatch).
const maxPending = 2000

const (
	pendingAddSQL = `INSERT OR IGNORE INTO search_pending (repo, key) VALUES (?, ?)`
	// pendingReadSQL reads the marks and their entries' rows, without the
	// content (a batch reads that of the marks it takes, see pendingJob).
	// The oldest write first: each put indexed takes the next id below
	// the others (see apply), so that the newest comes first in a search;
	// writes of the same time by repository and key, the first last.
	pendingReadSQL = `SELECT p.repo, p.key, e.deleted, coalesce(e.version, 0), coalesce(e.size, 0)
		FROM search_pending p
		LEFT JOIN entries e ON e.repo = p.repo AND e.key = p.key
		ORDER BY e.updated_at, p.repo DESC, p.key DESC LIMIT ?`
	// contentAtSQL reads an entry's content at its version.
	contentAtSQL   = `SELECT content FROM revisions WHERE repo = ? AND key = ? AND version = ?`
	pendingDropSQL = `DELETE FROM search_pending WHERE repo = ? AND key = ?`
)

// pendingKey is a key a write changed, marked at the batch's end.
type pendingKey struct{ repo, key string }

// markPending records the batch's marks. It returns how many keys are
// marked in all once it commits: the count before and the rows it added
// (a key already marked adds none) or, after a pendingJob, a count of the
// table, so that a count that ever went wrong is set right by the next
// search.
func (b *batch) markPending(ctx context.Context) (int64, error) {
	total := b.w.db.pending.Load() // only the writer changes it
	for _, m := range b.marks {
		res, err := b.stmts.search.pendingAdd.ExecContext(ctx, m.repo, m.key)
		if err != nil {
			return total, wrap("mark for search", err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return total, wrap("mark for search", err)
		}
		total += n
	}
	if b.indexedMarks {
		err := b.tx.QueryRowContext(ctx, `SELECT count(*) FROM search_pending`).Scan(&total)
		return total, wrap("count search marks", err)
	}
	return total, nil
}

// pendingJob indexes up to pendingBatch marked keys, the oldest first,
// with their current content (a deleted or purged key leaves the index),
// as many as searchtext.BatchLen takes, and drops their marks; more
// reports that it left some.
type pendingJob struct {
	serverJob
	more bool
}

// marked is a marked key and its entry's row.
type marked struct {
	pendingKey
	deleted       sql.NullInt64 // NULL: the entry is gone (purged)
	version, size int64
}

// live reports whether the key has content to index.
func (m marked) live() bool { return m.deleted.Valid && m.deleted.Int64 == 0 }

func (j *pendingJob) run(ctx context.Context, b *batch) error {
	return b.inSavepoint(ctx, func() error {
		keys, err := readMarks(ctx, b.tx)
		if err != nil {
			return err
		}
		sizes := make([]int64, len(keys))
		for i, m := range keys {
			if m.live() {
				sizes[i] = m.size
			}
		}
		n := searchtext.BatchLen(sizes, pendingBatch)
		var read int64
		for _, m := range keys[:n] {
			c := indexChange{repo: m.repo, key: m.key, del: !m.live()}
			if !c.del {
				content, err := b.stmts.search.contentAt(ctx, m.repo, m.key, m.version)
				if err != nil {
					return err
				}
				c.e, read = searchtext.EntryOf(m.key, content), read+int64(len(content))
			}
			b.index = append(b.index, c) // made at the batch's end, as a backfill's
			if _, err := b.stmts.search.pendingDrop.ExecContext(ctx, m.repo, m.key); err != nil {
				return wrap("drop search mark", err)
			}
		}
		if n > 0 {
			b.w.db.indexBatches.Add(read)
		}
		b.indexedMarks = true
		b.changed = b.changed || n > 0
		j.more = n < len(keys) || len(keys) == pendingBatch
		return nil
	})
}

// readMarks reads up to pendingBatch marks, in the order they are indexed.
func readMarks(ctx context.Context, tx *sql.Tx) ([]marked, error) {
	rows, err := tx.QueryContext(ctx, pendingReadSQL, pendingBatch)
	if err != nil {
		return nil, wrap("read search marks", err)
	}
	var keys []marked
	for rows.Next() {
		var m marked
		if err := rows.Scan(&m.repo, &m.key, &m.deleted, &m.version, &m.size); err != nil {
			_ = rows.Close()
			return nil, wrap("read search marks", err)
		}
		keys = append(keys, m)
	}
	return keys, wrap("read search marks", errors.Join(rows.Err(), rows.Close()))
}

// indexPending indexes every key marked before it was called (and those
// marked meanwhile, as far as the batches take it).
func (db *DB) indexPending(ctx context.Context) error {
	for db.pending.Load() > 0 {
		j := &pendingJob{serverJob: newServerJob(ctx)}
		if err := db.writer.submit(ctx, j, j.finished); err != nil {
			return fmt.Errorf("index for search: %w", err)
		}
		if j.err != nil {
			return fmt.Errorf("index for search: %w", j.err)
		}
		if !j.more {
			return nil
		}
	}
	return nil
}

// countPending reads how many keys are marked, at open.
func (db *DB) countPending(ctx context.Context) error {
	var n int64
	if err := db.read.QueryRowContext(ctx, `SELECT count(*) FROM search_pending`).Scan(&n); err != nil {
		return wrap("count search marks", err)
	}
	db.pending.Store(n)
	return nil
}
