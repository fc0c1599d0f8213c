package storetest

import (
	"fmt"
	"testing"

	"github.com/teammem/teammem/memcore/protocol/protocoltest"
	"github.com/teammem/teammem/server"
)

// testSearchIndexLinks: a word of an index line finds the keys the line
// links, as every surface reads index links (protocoltest.IndexLinkCases),
// and no key the line only seems to link.
func testSearchIndexLinks(t *testing.T, s server.Store) {
	seen := contents{}
	for _, c := range protocoltest.IndexLinkCases {
		for _, k := range c.Keys {
			seen[k] = "a topic"
		}
	}
	for _, k := range []string{"a.md", "x.md", "etc/x.md", "etc/passwd.md", "notes.md", "f(1.md"} {
		seen[k] = "a topic"
	}
	for i, c := range protocoltest.IndexLinkCases {
		t.Run(c.Name, func(t *testing.T) {
			r := fmt.Sprintf("acme/links%02d", i)
			entries := contents{"MEMORY.md": c.Index + " numbat\n"} // the word on the line that links, in every case that links
			for k, v := range seen {
				entries[k] = v
			}
			apply(t, s, write(r, at(0), entries))
			want := []string{r + ":MEMORY.md"}
			for _, k := range c.Keys {
				want = append(want, r+":"+k)
			}
			wantSameHits(t, search(t, s, "numbat", r), want...)
		})
	}
}
