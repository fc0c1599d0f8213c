package sqlite

import (
	"context"
	"fmt"
	"time"
)

// Every write batch adds a segment to each FTS5 index it changes, and
// FTS5 merges them only as far as its automerge keeps their number per
// level down: a search then reads every term's doclist in each of the
// segments left. After a burst of writes the index is merged into one
// segment, a step at a time, once the writes have paused (see merger), so
// that a search reads each term's doclist from one segment again.

// mergeIdle is how long the writes must pause before merging begins.
const mergeIdle = time.Second

// mergePages is the work of one merge step, in leaf pages written (the
// argument of FTS5's merge command; negative: segments of every level are
// merged, as 'optimize' does, but a step at a time). A step is one writer
// transaction, so a client's write waits behind one step at most.
const mergePages = 200

// mergeTables are the FTS5 tables kept merged.
var mergeTables = []string{"search_fts", "search_titles_fts", "search_names_fts", "search_links_fts"}

// mergeJob runs one merge step of every FTS5 table in the writer's
// transaction; worked reports that some table had segments to merge.
type mergeJob struct {
	serverJob
	worked bool
}

func (j *mergeJob) run(ctx context.Context, b *batch) error {
	return b.inSavepoint(ctx, func() error {
		for _, table := range mergeTables {
			// FTS5's merge command did work when it changed 2 rows or
			// more (sqlite3_total_changes, per connection).
			var before, after int64
			if err := b.tx.QueryRowContext(ctx, `SELECT total_changes()`).Scan(&before); err != nil {
				return wrap("merge search index", err)
			}
			if _, err := b.tx.ExecContext(ctx, fmt.Sprintf(`INSERT INTO %[1]s (%[1]s, rank) VALUES ('merge', %d)`, table, -mergePages)); err != nil {
				return wrap("merge search index", err)
			}
			if err := b.tx.QueryRowContext(ctx, `SELECT total_changes()`).Scan(&after); err != nil {
				return wrap("merge search index", err)
			}
			if after-before >= 2 {
				j.worked, b.changed = true, true
			}
		}
		return nil
	})
}

// merger merges the search index whenever writes that changed it have
// paused for mergeIdle, one step per writer transaction, until a step finds
// nothing to merge or a write comes. It runs from Open in its own
// goroutine until ctx ends.
func (db *DB) merger(ctx context.Context, written <-chan struct{}) {
	for {
		select { // a write changed the index
		case <-written:
		case <-ctx.Done():
			return
		}
		for db.mergeWhenIdle(ctx, written) { //nolint:revive // each round waits for the writes to pause again
		}
	}
}

// mergeWhenIdle waits until no write has changed the index for
// mergeIdle, then merges until nothing is left to merge (false) or a write
// comes (true: wait for the next pause).
func (db *DB) mergeWhenIdle(ctx context.Context, written <-chan struct{}) (interrupted bool) {
	// One timer, pushed back by each write: the writer pokes written after
	// every commit, and a timer made per poke was one per batch.
	idle := time.NewTimer(mergeIdle)
	defer idle.Stop()
	for waiting := true; waiting; {
		select {
		case <-written:
			if db.pending.Load() >= maxPending { // a burst: index its keys now
				_ = db.indexPending(ctx)
			}
			idle.Reset(mergeIdle)
		case <-idle.C:
			waiting = false
		case <-ctx.Done():
			return false
		}
	}
	if db.indexPending(ctx) != nil {
		return false
	}
	for {
		j := &mergeJob{serverJob: newServerJob(ctx)}
		if err := db.writer.submit(ctx, j, j.finished); err != nil || j.err != nil || !j.worked {
			return false // a failing database is told by the writes; the next pause tries again
		}
		db.writer.merged.Add(1)
		select {
		case <-written:
			return true
		default:
		}
	}
}
