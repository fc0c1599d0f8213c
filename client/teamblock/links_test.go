package teamblock

import (
	"slices"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"

	"github.com/teammem/teammem/memcore/protocol/protocoltest"
)

// TestIndexLinkCases runs the shared index lines through the block: the
// rendered block, read as GitHub-flavoured Markdown, links exactly the
// keys each line links, and HoldBack holds back the line that links them.
func TestIndexLinkCases(t *testing.T) {
	for _, c := range protocoltest.IndexLinkCases {
		t.Run(c.Name, func(t *testing.T) {
			b := Render(Input{Repo: "acme/api", TeamDir: testTeam, Index: c.Index})
			if got := blockLinks(t, b.Text); !slices.Equal(got, c.Keys) {
				t.Errorf("the block of %q links %q, want %q\n%s", c.Index, got, c.Keys, b.Text)
			}
			if b.Omitted != 0 && len(c.Keys) > 0 {
				t.Errorf("the block of %q left out %d lines", c.Index, b.Omitted)
			}
			var want []string
			if len(c.Keys) > 0 {
				lines := strings.Split(c.Index, "\n")
				want = lines[len(lines)-1:] // the line that links, in every case that links
			}
			_, held := HoldBack(c.Index, "", func(k string) bool { return slices.Contains(c.Keys, k) })
			if !slices.Equal(held, want) {
				t.Errorf("HoldBack(%q) held %q, want %q", c.Index, held, want)
			}
		})
	}
}

// blockLinks returns the keys of the team folder that a rendered block
// links, in order, each once.
func blockLinks(t *testing.T, block string) []string {
	t.Helper()
	src := []byte(block)
	doc := goldmark.New(goldmark.WithExtensions(extension.GFM)).Parser().Parse(text.NewReader(src))
	var keys []string
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if l, ok := n.(*ast.Link); ok && entering {
			key, ok := strings.CutPrefix(string(l.Destination), testTeam+"/")
			if !ok {
				t.Errorf("link to %q outside the team folder", l.Destination)
			}
			if !slices.Contains(keys, key) {
				keys = append(keys, key)
			}
		}
		return ast.WalkContinue, nil
	})
	return keys
}
