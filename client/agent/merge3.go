package agent

import (
	"slices"
	"strings"
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
	bl := splitLines(base)
	hunks, ok := combine(diffHunks(bl, splitLines(local)), diffHunks(bl, splitLines(server)))
	if !ok {
		return "", false
	}
	return applyHunks(bl, hunks), true
}

// combine returns the union of two sides' hunks in base order, or false when
// a hunk of one side conflicts with a different hunk of the other.
func combine(local, server []hunk) ([]hunk, bool) {
	all := slices.Clone(local)
	for _, s := range server {
		dup := false
		for _, l := range local {
			if s.equal(l) {
				dup = true
			} else if conflicts(s, l) {
				return nil, false
			}
		}
		if !dup {
			all = append(all, s)
		}
	}
	slices.SortFunc(all, func(a, b hunk) int {
		if a.start != b.start {
			return a.start - b.start
		}
		return a.end - b.end
	})
	return all, true
}

// conflicts reports whether two edits of different sides cannot both apply
// unambiguously.
func conflicts(a, b hunk) bool {
	return a.start == b.start || (a.start < b.end && b.start < a.end)
}

// applyHunks applies sorted, non-conflicting hunks to base.
func applyHunks(base []string, hunks []hunk) string {
	var sb strings.Builder
	pos := 0
	for _, h := range hunks {
		writeLines(&sb, base[pos:h.start])
		writeLines(&sb, h.lines)
		pos = h.end
	}
	writeLines(&sb, base[pos:])
	return sb.String()
}

func writeLines(sb *strings.Builder, lines []string) {
	for _, l := range lines {
		sb.WriteString(l)
	}
}
