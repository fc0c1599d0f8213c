package webui

import (
	"html"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/teammem/teammem/memcore/protocol/protocoltest"
)

// hrefRe finds the link targets of rendered HTML.
var hrefRe = regexp.MustCompile(`href="([^"]*)"`)

// TestMarkdownIndexLinkCases renders the shared index lines as the
// repository's MEMORY.md: the page links the entry page of exactly the
// keys each line links, as every other surface reads them.
func TestMarkdownIndexLinkCases(t *testing.T) {
	md := newMarkdown()
	for _, c := range protocoltest.IndexLinkCases {
		t.Run(c.Name, func(t *testing.T) {
			out := string(md.render("acme/api", "MEMORY.md", c.Index))
			if got := linkedEntries(t, out); !slices.Equal(got, c.Keys) {
				t.Errorf("MEMORY.md %q renders links to the entries %q, want %q\n%s", c.Index, got, c.Keys, out)
			}
		})
	}
}

// linkedEntries returns the keys whose entry pages rendered HTML links, in
// order, each once.
func linkedEntries(t *testing.T, out string) []string {
	t.Helper()
	var keys []string
	for _, m := range hrefRe.FindAllStringSubmatch(out, -1) {
		u, err := url.Parse(html.UnescapeString(m[1]))
		if err != nil {
			t.Fatalf("href %q: %v", m[1], err)
		}
		if !strings.HasSuffix(u.Path, "/~entry") {
			continue
		}
		if k := u.Query().Get("key"); !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	return keys
}
