// Package secrets is the credential scanner shared by the teammem server
// (which rejects a PUT whose content carries a credential) and the agent
// (which skips such a file). It recognises high-confidence, prefix-anchored
// token formats only, so ordinary prose, code and configuration do not match.
//
// Scan never returns or retains the matched text: a Match names the rule and
// the line, nothing else. Redact gives the form of a name that carries a
// credential (a memory file called after a token) that may be shown. The package is safe for concurrent use; its rule
// table is built once at init and never modified.
package secrets

import (
	"slices"
	"sort"
	"strings"
)

// Match is one rule that fired; it never carries the matched text.
type Match struct {
	// RuleID is the stable rule identifier, e.g. "github-pat".
	RuleID string
	// Label is a human description of the credential kind.
	Label string
	// Line is the 1-based line on which the rule's first hit starts.
	Line int
}

// Scan reports the credentials found in content: one Match per rule that
// fires (a rule whose first token lies inside another rule's is not
// counted apart), ordered by Line then RuleID. It returns nil when content is clean.
//
// A cheap keyword pass over content selects the rules worth running; each
// selected rule's pattern then runs only on the lines holding one of its
// keywords (the private-key block, which spans lines, runs from the first
// keyword's line to the end).
func Scan(content string) []Match {
	hits := keywords.find(content)
	if hits == nil {
		return nil
	}
	type found struct{ start, end int }
	firsts := make(map[int]found, 4)
	for i, positions := range hits {
		if len(positions) > 0 {
			if start, end, ok := table[i].first(content, positions); ok {
				firsts[i] = found{start, end}
			}
		}
	}
	// A token inside another rule's longer token (a random body that
	// happens to hold "ghp_" and 36 more characters) is part of that one:
	// the rule is looked for again past it.
	past := func(i int, f found) (end int, inside bool) {
		for j, g := range firsts {
			if j != i && g.start <= f.start && f.end <= g.end && g.end-g.start > f.end-f.start {
				return g.end, true
			}
		}
		return 0, false
	}
	var out []Match
	for i, f := range firsts {
		for {
			end, inside := past(i, f)
			if !inside {
				out = append(out, Match{RuleID: table[i].ID, Label: table[i].Label, Line: lineAt(content, f.start)})
				break
			}
			rest := hits[i][sort.SearchInts(hits[i], end):]
			var ok bool
			if f.start, f.end, ok = table[i].first(content, rest); !ok || f.start < end {
				break
			}
		}
	}
	slices.SortFunc(out, compareMatches)
	return out
}

func compareMatches(a, b Match) int {
	if a.Line != b.Line {
		return a.Line - b.Line
	}
	return strings.Compare(a.RuleID, b.RuleID)
}

// lineAt returns the 1-based line holding byte offset off.
func lineAt(content string, off int) int {
	return 1 + strings.Count(content[:off], "\n")
}

// lineBounds returns the [start, end) of the line holding byte offset off,
// without its terminating newline.
func lineBounds(content string, off int) (int, int) {
	start := strings.LastIndexByte(content[:off], '\n') + 1
	end := strings.IndexByte(content[off:], '\n')
	if end < 0 {
		return start, len(content)
	}
	return start, off + end
}
