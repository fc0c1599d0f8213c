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

// ApplyPipelined applies first as one group and, sent while first is still
// in flight and planned against the state it leaves, second as another;
// pipelined reports that second could be sent so (else it was not sent).
func ApplyPipelined(db *DB, first, second []server.Write) (res [2][]server.WriteResult, errs [2][]error, pipelined bool) {
	jobs := func(ws []server.Write) []*job {
		js := make([]*job, len(ws))
		for i, w := range ws {
			js[i] = &job{ctx: context.Background(), w: w, done: make(chan struct{})}
		}
		return js
	}
	j1, j2 := jobs(first), jobs(second)
	f1 := db.send(j1, committed{}, nil)
	var f2 *flight
	if pipelined = db.pipelines(f1); pipelined {
		f2 = db.send(j2, committed{}, f1)
	}
	db.finish(f1)
	if f2 != nil {
		db.finish(f2)
	}
	for i, js := range [][]*job{j1, j2} {
		for _, j := range js {
			res[i], errs[i] = append(res[i], j.res), append(errs[i], j.err)
		}
	}
	return res, errs, pipelined
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
