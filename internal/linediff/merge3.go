package linediff

import (
	"slices"
)

// Merge3 merges two edited versions of base line by line. It succeeds when
// the edits of local and server touch disjoint ranges of base lines (edits
// made identically on both sides count once) and returns the merged text;
// otherwise it returns ok = false and the caller keeps both versions.
//
// Two edits conflict when their base ranges overlap, or when they start at
// the same line (two insertions at one place, or an insertion just before a
// change, whose order would be a guess). An unchanged side yields the other
// side exactly. Merge3 is pure and safe for concurrent use.
func Merge3(base, local, server string) (merged string, ok bool) {
	switch {
	case local == server, server == base:
		return local, true
	case local == base:
		return server, true
	}
	bl := Split(base)
	hunks, ok := combine(Hunks(bl, Split(local)), Hunks(bl, Split(server)))
	if !ok {
		return "", false
	}
	return Apply(bl, hunks), true
}

// combine returns the union of two sides' hunks in base order, or false when
// a hunk of one side conflicts with a different hunk of the other.
func combine(local, server []Hunk) ([]Hunk, bool) {
	all := slices.Clone(local)
	for _, s := range server {
		dup := false
		for _, l := range local {
			if s.Equal(l) {
				dup = true
			} else if conflicts(s, l) {
				return nil, false
			}
		}
		if !dup {
			all = append(all, s)
		}
	}
	slices.SortFunc(all, func(a, b Hunk) int {
		if a.Start != b.Start {
			return a.Start - b.Start
		}
		return a.End - b.End
	})
	return all, true
}

// conflicts reports whether two edits of different sides cannot both apply
// unambiguously.
func conflicts(a, b Hunk) bool {
	return a.Start == b.Start || (a.Start < b.End && b.Start < a.End)
}
