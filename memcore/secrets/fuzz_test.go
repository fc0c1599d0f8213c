package secrets

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// FuzzScan checks Scan's contract on any input: no panic, one match per
// rule at most, known rules only, lines within the text, sorted output.
// Seeds live in testdata/fuzz/FuzzScan (prefixes and near misses only, so
// the repository holds no credential-shaped string); f.Add adds generated
// tokens from a fixed seed.
func FuzzScan(f *testing.F) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, rule := range Rules() {
		f.Add("x " + generators[rule.ID](r) + "\n")
	}
	labels := map[string]string{}
	for _, rule := range Rules() {
		labels[rule.ID] = rule.Label
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Scan(s)
		if got != nil && len(got) == 0 {
			t.Fatal("Scan returned an empty non-nil slice")
		}
		lines := strings.Count(s, "\n") + 1
		seen := map[string]bool{}
		for _, m := range got {
			if labels[m.RuleID] != m.Label || m.Label == "" {
				t.Fatalf("unknown rule or wrong label: %+v", m)
			}
			if seen[m.RuleID] {
				t.Fatalf("rule %s reported twice: %+v", m.RuleID, got)
			}
			seen[m.RuleID] = true
			if m.Line < 1 || m.Line > lines {
				t.Fatalf("line %d outside 1..%d", m.Line, lines)
			}
		}
		if !slices.IsSortedFunc(got, compareMatches) {
			t.Fatalf("not sorted: %+v", got)
		}
	})
}
