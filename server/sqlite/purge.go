package sqlite

import (
	"context"
	"fmt"
	"time"
)

// purgeJob is one Store.PurgeTombstones.
type purgeJob struct {
	serverJob
	before time.Time
	n      int
}

func (j *purgeJob) run(ctx context.Context, b *batch) error {
	return b.inSavepoint(ctx, func() error {
		cutoff := micros(j.before)
		_, err := b.tx.ExecContext(ctx, `UPDATE repos SET since_floor = max(since_floor,
				(SELECT max(version) FROM entries WHERE repo = repos.slug AND deleted = 1 AND deleted_at < ?1))
			WHERE slug IN (SELECT repo FROM entries WHERE deleted = 1 AND deleted_at < ?1)`, cutoff)
		if err != nil {
			return wrap("raise since floor", err)
		}
		res, err := b.tx.ExecContext(ctx, `DELETE FROM entries WHERE deleted = 1 AND deleted_at < ?`, cutoff)
		if err != nil {
			return wrap("purge tombstones", err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return wrap("purge tombstones", err)
		}
		j.n = int(n)
		b.changed = b.changed || n > 0
		b.purged = b.purged || n > 0
		return nil
	})
}

// PurgeTombstones removes tombstones deleted before the given time and
// raises the since-floor of their repositories, in the writer's next
// batch; see server.Store.
func (db *DB) PurgeTombstones(ctx context.Context, before time.Time) (int, error) {
	j := &purgeJob{serverJob: newServerJob(ctx), before: before}
	if err := db.writer.submit(ctx, j, j.finished); err != nil {
		return 0, fmt.Errorf("purge tombstones: %w", err)
	}
	if j.err != nil {
		return 0, j.err
	}
	return j.n, nil
}
