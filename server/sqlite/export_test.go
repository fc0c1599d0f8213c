package sqlite

// LargestBatch returns the most writes one transaction of db has held.
func LargestBatch(db *DB) int64 { return db.writer.largest.Load() }

// Batched returns how many batches db's writer ran and the jobs they held.
func Batched(db *DB) (batches, jobs int64) {
	return db.writer.batches.Load(), db.writer.batched.Load()
}

// Lingered returns how many batches of db waited for more writes.
func Lingered(db *DB) int64 { return db.writer.lingered.Load() }

// Rewound returns how many times db's writer rewound the WAL.
func Rewound(db *DB) int64 { return db.writer.rewound.Load() }

// SetWALRestartFrames sets the WAL length past which the writer rewinds
// it, until the test ends.
func SetWALRestartFrames(t interface{ Cleanup(func()) }, n int64) {
	old := walRestartFrames
	walRestartFrames = n
	t.Cleanup(func() { walRestartFrames = old })
}

// Merged returns how many merge steps of db's search index did work.
func Merged(db *DB) int64 { return db.writer.merged.Load() }

// WaitBackfill waits until db's search backfill has ended and returns its
// outcome.
func WaitBackfill(db *DB) error {
	<-db.backfilled
	return db.backfillErr
}

// IndexBatches returns how many batches indexed marked keys or backfilled
// entries, and the most content one of them read.
func IndexBatches(db *DB) (batches, largest int64) { return db.indexBatches.Get() }
