package sqlite

// LargestBatch returns the most writes one transaction of db has held.
func LargestBatch(db *DB) int64 { return db.writer.largest.Load() }

// Lingered returns how many batches of db waited for more writes.
func Lingered(db *DB) int64 { return db.writer.lingered.Load() }

// WaitBackfill waits until db's search backfill has ended and returns its
// outcome.
func WaitBackfill(db *DB) error {
	<-db.backfilled
	return db.backfillErr
}
