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
// fires, ordered by Line then RuleID. It returns nil when content is clean.
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
	var out []Match
	for i, positions := range hits {
		if len(positions) == 0 {
			continue
		}
		r := &table[i]
		if off, _, ok := r.first(content, positions); ok {
			out = append(out, Match{RuleID: r.ID, Label: r.Label, Line: lineAt(content, off)})
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
