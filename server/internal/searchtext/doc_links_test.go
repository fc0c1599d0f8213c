package searchtext

import (
	"slices"
	"strings"
	"testing"

	"github.com/teammem/teammem/memcore/protocol/protocoltest"
)

// TestEntryOfIndexLinkCases runs the shared index lines through what a
// store indexes for a put of MEMORY.md: each key the line links gets the
// line's words, and nothing else does.
func TestEntryOfIndexLinkCases(t *testing.T) {
	for _, c := range protocoltest.IndexLinkCases {
		t.Run(c.Name, func(t *testing.T) {
			e := EntryOf("MEMORY.md", c.Index)
			var keys []string
			for k := range e.Links {
				keys = append(keys, k)
			}
			want := slices.Clone(c.Keys)
			slices.Sort(keys)
			slices.Sort(want)
			if !slices.Equal(keys, want) {
				t.Fatalf("EntryOf(%q).Links has %q, want %q", c.Index, keys, want)
			}
			lines := strings.Split(c.Index, "\n")
			words := Normalize(lines[len(lines)-1], 4096) // the line that links, in every case that links
			for _, k := range keys {
				if e.Links[k] != words {
					t.Errorf("the words indexed under %q are %q, want %q", k, e.Links[k], words)
				}
			}
		})
	}
}
