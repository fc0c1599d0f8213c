package searchtext

import "sync/atomic"

// BatchBytes bounds the content one indexing batch of a store reads and
// tokenises: a batch holds its entries' contents and their words (about
// as much again) until it writes them to the index, so a backlog of large
// entries (a repository of 250 KB notes just pushed) is indexed a few
// megabytes at a time, whatever the number of keys a batch may take.
const BatchBytes = 4 << 20

// BatchLen returns how many of the entries of sizes (the bytes of content
// of each, in order; 0 for one leaving the index) one indexing batch
// takes: at most maxKeys, and as many as fit in BatchBytes of content.
// The first is always taken, so that an entry larger than BatchBytes is
// indexed alone.
func BatchLen(sizes []int64, maxKeys int) int {
	var total int64
	for i, size := range sizes {
		if i == maxKeys {
			return i
		}
		total += max(size, 0)
		if i > 0 && total > BatchBytes {
			return i
		}
	}
	return len(sizes)
}

// BatchStats counts a store's indexing batches and the most content one of
// them read. Safe for concurrent use.
type BatchStats struct {
	batches, largest atomic.Int64
}

// Add records a batch that read bytes of content.
func (s *BatchStats) Add(bytes int64) {
	s.batches.Add(1)
	for {
		old := s.largest.Load()
		if bytes <= old || s.largest.CompareAndSwap(old, bytes) {
			return
		}
	}
}

// Get returns the number of batches recorded and the most bytes one read.
func (s *BatchStats) Get() (batches, largest int64) {
	return s.batches.Load(), s.largest.Load()
}
