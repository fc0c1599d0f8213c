// Package writeplan is the write planner both SQL stores share: it plans a
// server.Write against a repository's live entries (kept in key byte order)
// and caches those entries per repository between writes, so that the SQL stores (server/postgres, server/sqlite) check
// limits, detect case-fold collisions and recompute the dataset checksum
// identically, without rereading every entry on every write.
package writeplan

import (
	"slices"

	"github.com/teammem/teammem/memcore/protocol"
)

// Entry is what a Set knows about one live key.
type Entry struct {
	Checksum string
	Size     int64
}

// Set is the live entries of one repository at one version. It is not safe
// for concurrent use; the Cache hands each Set to one writer at a time.
type Set struct {
	version int64
	keys    []string            // sorted in byte order
	sums    []string            // sums[i] is the entry checksum of keys[i]
	entries map[string]Entry    // by key
	folded  map[string][]string // protocol.FoldKey(key) → the live keys folding so
	// prefixes[j] is the dataset hasher after the lines of
	// keys[:j*stride]; a change at keys[i] drops those after i.
	prefixes []*protocol.DatasetHasher
}

// stride is how many keys separate two hasher states a Set keeps: a write
// rehashes at most stride-1 keys before the first one it changes, and a
// repository of n keys keeps n/stride states of about 200 bytes.
const stride = 64

// New returns an empty Set of the given version.
func New(version int64) *Set {
	return &Set{version: version, entries: map[string]Entry{}, folded: map[string][]string{}}
}

// Version returns the repository version the Set reflects.
func (s *Set) Version() int64 { return s.version }

// Len returns the number of live entries.
func (s *Set) Len() int { return len(s.keys) }

// Get returns the live entry of key.
func (s *Set) Get(key string) (Entry, bool) {
	e, ok := s.entries[key]
	return e, ok
}

// Put adds or replaces a live entry. Keys added in increasing byte order
// (as when loading from an ORDER BY key query) are appended in O(1).
func (s *Set) Put(key string, e Entry) {
	old, ok := s.entries[key]
	switch {
	case !ok:
		s.changed(s.insertKey(key, e.Checksum))
		f := protocol.FoldKey(key)
		s.folded[f] = append(s.folded[f], key)
	case old.Checksum != e.Checksum:
		i, _ := slices.BinarySearch(s.keys, key)
		s.sums[i] = e.Checksum
		s.changed(i)
	}
	s.entries[key] = e
}

// insertKey inserts key and its checksum into the sorted keys and returns
// its index.
func (s *Set) insertKey(key, sum string) int {
	if n := len(s.keys); n == 0 || s.keys[n-1] < key {
		s.keys, s.sums = append(s.keys, key), append(s.sums, sum)
		return n
	}
	i, _ := slices.BinarySearch(s.keys, key)
	s.keys, s.sums = slices.Insert(s.keys, i, key), slices.Insert(s.sums, i, sum)
	return i
}

// changed drops the hasher states that cover keys[i], which was inserted,
// changed or deleted.
func (s *Set) changed(i int) {
	if keep := i/stride + 1; keep < len(s.prefixes) {
		clear(s.prefixes[keep:])
		s.prefixes = s.prefixes[:keep]
	}
}

// Delete removes a live entry; deleting an absent key does nothing.
func (s *Set) Delete(key string) {
	if _, ok := s.entries[key]; !ok {
		return
	}
	delete(s.entries, key)
	f := protocol.FoldKey(key)
	if rest := slices.DeleteFunc(s.folded[f], func(k string) bool { return k == key }); len(rest) > 0 {
		s.folded[f] = rest
	} else {
		delete(s.folded, f)
	}
	if i, found := slices.BinarySearch(s.keys, key); found {
		s.keys, s.sums = slices.Delete(s.keys, i, i+1), slices.Delete(s.sums, i, i+1)
		s.changed(i)
	}
}

// Checksum returns the dataset checksum of the live entries (protocol §3).
// It hashes on from the last hasher state kept, keeping one every stride
// keys on the way, so that after a write only the keys from the first one
// it changed (rounded down to a stride) are hashed again.
func (s *Set) Checksum() string {
	h, from := s.resume()
	for i := from; i < len(s.keys); i++ {
		if i%stride == 0 && i/stride == len(s.prefixes) {
			s.keep(h)
		}
		h.Add(s.keys[i], s.sums[i])
	}
	return h.Sum()
}

// resume returns a hasher of the keys before from: a clone of the last
// state kept, or a new hasher from 0 when none is kept or cloning fails.
func (s *Set) resume() (h *protocol.DatasetHasher, from int) {
	if n := len(s.prefixes); n > 0 {
		if h, err := s.prefixes[n-1].Clone(); err == nil {
			return h, (n - 1) * stride
		}
	}
	return protocol.NewDatasetHasher(), 0
}

// keep appends a copy of h as the next hasher state; without cloning
// (GOFIPS140=v1.0.0) nothing is kept and every Checksum hashes every key.
func (s *Set) keep(h *protocol.DatasetHasher) {
	if c, err := h.Clone(); err == nil {
		s.prefixes = append(s.prefixes, c)
	}
}

// collisions returns the live keys other than key that fold like key.
func (s *Set) collisions(key string) []string {
	var others []string
	for _, k := range s.folded[protocol.FoldKey(key)] {
		if k != key {
			others = append(others, k)
		}
	}
	return others
}
