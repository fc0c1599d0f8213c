package memcore

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/teammem/teammem/memcore/protocol"
	"github.com/teammem/teammem/memcore/protocol/protocoltest"
)

// TestLintIndexLinkCases runs the shared index lines through the lint with
// every key missing and everything else present: the dead links it reports
// are exactly the keys the line links, so it checks the links the other
// surfaces read, and no others.
func TestLintIndexLinkCases(t *testing.T) {
	missingKeys := func(rel string) bool {
		_, isKey := protocol.JoinLink("", rel)
		return !isKey
	}
	for _, c := range protocoltest.IndexLinkCases {
		t.Run(c.Name, func(t *testing.T) {
			var dead []string
			for _, p := range LintIndex("MEMORY.md", c.Index, missingKeys) {
				if p.Rule == RuleDeadLink {
					dead = append(dead, strings.TrimPrefix(p.Message, "link to missing file "))
				}
			}
			if !cmp.Equal(dead, c.Keys) {
				t.Errorf("LintIndex(%q) finds dead links to %q, want %q", c.Index, dead, c.Keys)
			}
		})
	}
}
