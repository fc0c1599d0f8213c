package webui

import (
	"slices"
	"strings"
	"testing"

	"github.com/teammem/teammem/memcore/protocol"
	"github.com/teammem/teammem/memcore/protocol/protocoltest"
)

// FuzzMarkdownLinksAgree renders a line of a paragraph with goldmark and
// compares the entries it links with the keys protocol.LinkedKeys reads in
// it: the web UI and every other surface agree on which keys a line links.
// Left out are what goldmark reads as more than an inline link: images,
// autolinks and raw HTML ("!", "<"), entities ("&"), line breaks, and
// ASCII control characters, which CommonMark allows nowhere in a link
// destination: the one grammar reads no link there, goldmark is lenient.
func FuzzMarkdownLinksAgree(f *testing.F) {
	for _, c := range protocoltest.IndexLinkCases {
		f.Add(c.Index)
	}
	md := newMarkdown()
	f.Fuzz(func(t *testing.T, line string) {
		if strings.ContainsAny(line, "!<&") || strings.ContainsFunc(line, isASCIIControl) {
			return
		}
		line = "x " + line
		want := protocol.LinkedKeys("", line)
		out := string(md.render("acme/api", "MEMORY.md", line))
		if got := linkedEntries(t, out); !slices.Equal(got, want) {
			t.Fatalf("%q: goldmark links the entries %q, protocol.LinkedKeys %q\n%s", line, got, want, out)
		}
	})
}

// isASCIIControl reports whether r is an ASCII control character (tab
// aside, which CommonMark reads as space).
func isASCIIControl(r rune) bool { return (r < 0x20 && r != '\t') || r == 0x7f }
