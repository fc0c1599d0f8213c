package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/teammem/teammem/server"
)

// LargestGroup returns the most writes one transaction of db has applied
// together.
func LargestGroup(db *DB) int64 { return db.writes.largest.Load() }

// ApplyGroup applies ws, writes of one repository, as one group.
func ApplyGroup(db *DB, ws []server.Write) ([]server.WriteResult, []error) {
	jobs := make([]*job, len(ws))
	for i, w := range ws {
		jobs[i] = &job{ctx: context.Background(), w: w, done: make(chan struct{})}
	}
	db.runGroup(jobs, committed{})
	res, errs := make([]server.WriteResult, len(ws)), make([]error, len(ws))
	for i, j := range jobs {
		res[i], errs[i] = j.res, j.err
	}
	return res, errs
}

// WaitBackfill waits until db's search backfill has ended and returns its
// outcome.
func WaitBackfill(db *DB) error {
	<-db.backfilled
	return db.backfillErr
}

// SetPendingPause sets how long writes pause before a DB opened afterwards
// indexes the keys they marked, until the test ends.
func SetPendingPause(t testing.TB, d time.Duration) {
	old := pendingPause
	pendingPause = d
	t.Cleanup(func() { pendingPause = old })
}

// IndexBatches returns how many transactions indexed marked keys or
// backfilled entries, and the most content one of them read.
func IndexBatches(db *DB) (batches, largest int64) { return db.indexBatches.Get() }
