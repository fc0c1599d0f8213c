package sqlite

// LargestBatch returns the most writes one transaction of db has held.
func LargestBatch(db *DB) int64 { return db.writer.largest.Load() }

// Lingered returns how many batches of db waited for more writes.
func Lingered(db *DB) int64 { return db.writer.lingered.Load() }
