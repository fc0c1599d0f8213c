package protocol_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/teammem/teammem/memcore/protocol"
	"github.com/teammem/teammem/memcore/protocol/protocoltest"
)

// FuzzIndexLinks reads an index and a key: the parser never panics, each
// link it finds is where it says and reads the same alone, the views of the
// surfaces agree (the keys a line links are the keys IndexLines gives it
// outside fenced code, and each is among the targets the lint checks), and
// a valid key always has a line that links it and nothing else.
func FuzzIndexLinks(f *testing.F) {
	for _, c := range protocoltest.IndexLinkCases {
		f.Add(c.Index, "a.md")
	}
	for _, k := range protocoltest.OrdinaryKeys {
		f.Add("- [x](x.md)", k.Key)
	}
	f.Add("[a](b.md) ](c.md) `` [d](<e f.md> \"t\") ``` [g](h(1).md)", "my notes (1).md")
	f.Fuzz(func(t *testing.T, index, key string) {
		var fence protocol.Fence
		lines := protocol.IndexLines("", index)
		for i, l := range strings.Split(index, "\n") {
			l = strings.TrimSuffix(l, "\r")
			checkLinks(t, l)
			code := fence.Code(l)
			if i >= len(lines) {
				continue // the text after the last line break
			}
			want := protocol.LinkedKeys("", l)
			if code {
				want = nil
			}
			if got := lines[i].Keys; !slices.Equal(got, want) {
				t.Fatalf("line %d %q: IndexLines links %q, LinkedKeys %q", i, l, got, want)
			}
			targets := protocol.LinkTargets(l)
			for _, k := range protocol.LinkedKeys("", l) {
				if protocol.ValidateKey(k) != nil || !slices.Contains(targets, k) {
					t.Fatalf("line %q links %q, which is no valid key or not among the lint's targets %q", l, k, targets)
				}
			}
		}
		if protocol.ValidateKey(key) == nil {
			line := "- [T](" + protocol.LinkDest(key) + ") — hook"
			if got := protocol.LinkedKeys("", line); !slices.Equal(got, []string{key}) {
				t.Fatalf("%q links %q, want %q", line, got, key)
			}
		}
	})
}

// checkLinks checks that the links of line are in order, do not overlap,
// start with "[" and end with ")", hold their text and destination, and
// that each read alone is the same link.
func checkLinks(t *testing.T, line string) {
	t.Helper()
	end := 0
	for _, l := range protocol.Links(line) {
		if l.Start < end || l.End <= l.Start || l.End > len(line) || line[l.Start] != '[' || line[l.End-1] != ')' {
			t.Fatalf("Links(%q): link %+v out of place", line, l)
		}
		s := line[l.Start:l.End]
		if !strings.HasPrefix(s, "["+l.Text+"](") || !strings.Contains(s[len(l.Text)+2:], l.Dest) {
			t.Fatalf("Links(%q): link %+v does not hold its text and destination", line, l)
		}
		alone := protocol.Links(s)
		if len(alone) != 1 || alone[0].Text != l.Text || alone[0].Dest != l.Dest || alone[0].End != len(s) {
			t.Fatalf("Links(%q): link %q reads alone as %+v", line, s, alone)
		}
		end = l.End
	}
}
