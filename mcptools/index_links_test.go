package mcptools

import (
	"slices"
	"strings"
	"testing"

	"github.com/teammem/teammem/memcore/protocol/protocoltest"
)

// TestIndexLinkCases runs the shared index lines through write_memory and
// delete_memory: a one-line case is accepted as the index_line of the key
// it links (and refused when it links none), and deleting the keys an
// index links removes the lines that link them and nothing else.
func TestIndexLinkCases(t *testing.T) {
	for _, c := range protocoltest.IndexLinkCases {
		t.Run(c.Name, func(t *testing.T) {
			if !strings.Contains(c.Index, "\n") {
				checkWriteIndexLine(t, c)
			}
			checkDeleteIndexLines(t, c)
		})
	}
}

const teamIndex = "# Team\n"

func checkWriteIndexLine(t *testing.T, c protocoltest.IndexLinkCase) {
	t.Helper()
	key := "a.md"
	if len(c.Keys) > 0 {
		key = c.Keys[0]
	}
	repo := newMemRepo(1000, map[string]string{IndexKey: teamIndex})
	refused, text := callTool(t, connectTo(t, repo), "write_memory", map[string]any{"key": key, "content": "# Note\n", "index_line": c.Index})
	switch {
	case len(c.Keys) > 0 && refused:
		t.Errorf("write_memory %q with index_line %q refused: %s", key, c.Index, text)
	case len(c.Keys) > 0 && repo.entries[IndexKey] != teamIndex+c.Index+"\n":
		t.Errorf("write_memory left the index %q", repo.entries[IndexKey])
	case len(c.Keys) == 0 && !refused:
		t.Errorf("write_memory %q accepted index_line %q, which links no key", key, c.Index)
	case len(c.Keys) == 0 && (repo.entries[IndexKey] != teamIndex || repo.version != 1):
		t.Errorf("a refused write_memory changed the repository: %q", repo.entries)
	}
}

func checkDeleteIndexLines(t *testing.T, c protocoltest.IndexLinkCase) {
	t.Helper()
	seed := map[string]string{IndexKey: teamIndex + c.Index + "\n", "a.md": "# A\n"}
	for _, k := range c.Keys {
		seed[k] = "# Note\n"
	}
	want := seed[IndexKey]
	if len(c.Keys) > 0 { // the last line links, in every case that links
		lines := strings.SplitAfter(want, "\n")
		want = strings.Join(slices.Delete(lines, len(lines)-2, len(lines)-1), "")
	}
	repo := newMemRepo(1000, seed)
	cs := connectTo(t, repo)
	for _, k := range append(slices.Clone(c.Keys), "a.md") {
		if _, live := repo.entries[k]; !live {
			continue
		}
		if refused, text := callTool(t, cs, "delete_memory", map[string]any{"key": k}); refused {
			t.Fatalf("delete_memory %q refused: %s", k, text)
		}
	}
	if got := repo.entries[IndexKey]; got != want {
		t.Errorf("after deleting %q the index is %q, want %q", c.Keys, got, want)
	}
}

// TestWriteIndexLineAllOrNothing: a topic the backend leaves out (over its
// size limit) stores no index line, and an index line the backend leaves
// out stores no topic; both are refusals saying nothing was written.
func TestWriteIndexLineAllOrNothing(t *testing.T) {
	for _, c := range []struct {
		name, content, index string
	}{
		{"topic too large", strings.Repeat("x", 200), teamIndex},
		{"index too large", "# Note\n", teamIndex + strings.Repeat("- [x](x.md)\n", 15)},
	} {
		t.Run(c.name, func(t *testing.T) {
			repo := newMemRepo(150, map[string]string{IndexKey: c.index})
			refused, text := callTool(t, connectTo(t, repo), "write_memory",
				map[string]any{"key": "notes/db.md", "content": c.content, "index_line": "- [DB](notes/db.md) — why"})
			if !refused || !strings.Contains(text, "entry_too_large") || !strings.Contains(text, "nothing was written") {
				t.Errorf("write_memory answered refused=%v %q; want a refusal saying nothing was written", refused, text)
			}
			if repo.version != 1 || repo.entries[IndexKey] != c.index || repo.entries["notes/db.md"] != "" {
				t.Errorf("the refused write changed the repository: version %d, %q", repo.version, repo.entries)
			}
		})
	}
}
