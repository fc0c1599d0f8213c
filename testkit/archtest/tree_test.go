package archtest

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// TestContributingShowsTheTree checks that CONTRIBUTING.md's layout tree
// and the layout agree: every room has its line in the tree, and every line
// of the tree names a room (deploy/ and docs/ aside, which hold no Go).
func TestContributingShowsTheTree(t *testing.T) {
	doc, err := os.ReadFile("../../CONTRIBUTING.md")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(doc), "## Layout\n")
	if !ok {
		t.Fatal("CONTRIBUTING.md has no Layout section")
	}
	parts := strings.SplitN(after, "```", 3)
	if len(parts) < 3 {
		t.Fatal("CONTRIBUTING.md's Layout section has no fenced tree")
	}
	var tree []string
	for _, line := range strings.Split(parts[1], "\n") {
		if line == "" || line[0] == ' ' {
			continue // a continuation of the line above
		}
		for _, f := range strings.Fields(line) {
			name, ok := strings.CutSuffix(f, "/")
			if !ok {
				break // the description
			}
			tree = append(tree, name)
		}
	}
	var rooms []string
	for _, r := range layout {
		rooms = append(rooms, strings.TrimSuffix(r.pkg, "/..."))
	}
	for _, r := range rooms {
		if !slices.Contains(tree, r) {
			t.Errorf("%s/ is a room of the layout but has no line in CONTRIBUTING.md's tree", r)
		}
	}
	for _, name := range tree {
		if !slices.Contains(rooms, name) && name != "deploy" && name != "docs" {
			t.Errorf("CONTRIBUTING.md's tree names %s/, which is no room of the layout", name)
		}
	}
}
