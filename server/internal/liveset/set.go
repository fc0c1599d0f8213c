// Package liveset keeps a repository's live entries in key byte order,
// plans a server.Write against them and caches them per repository between
// writes, so that the SQL stores (server/postgres, server/sqlite) check
// limits, detect case-fold collisions and recompute the dataset checksum
// identically, without rereading every entry on every write.
package liveset

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
	entries map[string]Entry    // by key
	folded  map[string][]string // protocol.FoldKey(key) → the live keys folding so
}

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
	if _, ok := s.entries[key]; !ok {
		s.insertKey(key)
		f := protocol.FoldKey(key)
		s.folded[f] = append(s.folded[f], key)
	}
	s.entries[key] = e
}

func (s *Set) insertKey(key string) {
	if n := len(s.keys); n == 0 || s.keys[n-1] < key {
		s.keys = append(s.keys, key)
		return
	}
	i, _ := slices.BinarySearch(s.keys, key)
	s.keys = slices.Insert(s.keys, i, key)
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
		s.keys = slices.Delete(s.keys, i, i+1)
	}
}

// Checksum returns the dataset checksum of the live entries (protocol §3).
func (s *Set) Checksum() string {
	h := protocol.NewDatasetHasher()
	for _, k := range s.keys {
		h.Add(k, s.entries[k].Checksum)
	}
	return h.Sum()
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
