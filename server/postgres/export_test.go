package postgres

// LargestGroup returns the most writes one transaction of db has applied
// together.
func LargestGroup(db *DB) int64 { return db.writes.largest.Load() }
