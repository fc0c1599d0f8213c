package teamblock

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Bounds of a stale warning: the references named, and the length of each.
const (
	maxStaleRefs    = 3
	maxStaleRefRune = 60
)

// staleWarning is the end of an index line whose linked topics may be out
// of date: " ⚠ stale: `a/b.go`, `c.go:Run` (+2 more); not confirmed for
// 120 days — check the code before trusting it". It names at most
// maxStaleRefs references, each cut to maxStaleRefRune characters and
// written as a code span (or escaped text), so that a teammate's
// reference text can start no link, HTML, include or new line. "" when
// nothing is stale.
func staleWarning(stale func(string) Stale, keys []string) string {
	var refs []string
	days := 0
	for _, k := range keys {
		s := stale(k)
		refs = append(refs, s.Refs...)
		days = max(days, s.Days)
	}
	var parts []string
	if len(refs) > 0 {
		shown := make([]string, 0, maxStaleRefs)
		for _, r := range refs[:min(len(refs), maxStaleRefs)] {
			shown = append(shown, inlinePath(shorten(cleanLine(r))))
		}
		p := "stale: " + strings.Join(shown, ", ")
		if more := len(refs) - len(shown); more > 0 {
			p += fmt.Sprintf(" (+%d more)", more)
		}
		parts = append(parts, p)
	}
	if days > 0 {
		parts = append(parts, fmt.Sprintf("not confirmed for %d days", days))
	}
	if len(parts) == 0 {
		return ""
	}
	return " ⚠ " + strings.Join(parts, "; ") + " — check the code before trusting it"
}

// shorten cuts s to maxStaleRefRune characters, ending with "…" when cut.
func shorten(s string) string {
	if utf8.RuneCountInString(s) <= maxStaleRefRune {
		return s
	}
	r := []rune(s)
	return string(r[:maxStaleRefRune-1]) + "…"
}
