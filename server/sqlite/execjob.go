package sqlite

import (
	"context"
	"database/sql"
	"fmt"
)

// execJob is a write beside the repositories (an ended session, a
// reference report): run by the writer in its next batch, inside a
// savepoint, so that it never waits on the file's lock against the
// writer's own connection.
type execJob struct {
	ctx  context.Context
	fn   func(ctx context.Context, b *batch) error
	err  error
	done chan struct{}
}

func (j *execJob) context() context.Context { return j.ctx }

func (j *execJob) conditional() bool { return false }

func (j *execJob) run(ctx context.Context, b *batch) error {
	return b.inSavepoint(ctx, func() error {
		if err := j.fn(ctx, b); err != nil {
			return err
		}
		b.changed = true
		return nil
	})
}

func (j *execJob) finish(err error) {
	j.err = err
	close(j.done)
}

// exec runs fn in the writer's next batch and waits until it committed.
func (db *DB) exec(ctx context.Context, what string, fn func(ctx context.Context, tx *sql.Tx) error) error {
	return db.execBatch(ctx, what, func(ctx context.Context, b *batch) error { return fn(ctx, b.tx) })
}

// execBatch is exec for a job that needs the batch (its audit appender).
func (db *DB) execBatch(ctx context.Context, what string, fn func(ctx context.Context, b *batch) error) error {
	j := &execJob{ctx: ctx, fn: fn, done: make(chan struct{})}
	if err := db.writer.submit(ctx, j, j.done); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return j.err
}
