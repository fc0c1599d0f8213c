package mcp_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/testkit/servertest"
)

const repo = "acme/api"

// start runs the real server with /mcp, an entry limit of 300 bytes and
// repo holding index, and connects an MCP client to it as the admin.
func start(t *testing.T, index string) (*servertest.Server, *sdk.ClientSession) {
	t.Helper()
	srv := servertest.Start(t, servertest.Options{Limits: server.Limits{MaxEntryBytes: 300}})
	srv.Put(repo, map[string]string{"MEMORY.md": index}, nil, http.StatusOK)
	return srv, connectAs(t, srv, srv.Admin)
}

// call calls a tool and returns whether it was refused, with its text.
func call(t *testing.T, cs *sdk.ClientSession, tool string, args map[string]any) (refused bool, text string) {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return res.IsError, res.Content[0].(*sdk.TextContent).Text
}

// live returns the repository's live entries.
func live(t *testing.T, srv *servertest.Server) (int64, map[string]string) {
	t.Helper()
	snap, err := srv.Store.Snapshot(context.Background(), repo, server.ReadOptions{WithContent: true})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range snap.Live {
		out[e.Key] = e.Content
	}
	return snap.Version, out
}

// TestWriteIndexLineAllOrNothing: write_memory with an index_line stores
// the topic and the line together or neither: a topic over the server's
// entry limit leaves the index as it was, and an index the line would take
// over the limit leaves the topic unwritten.
func TestWriteIndexLineAllOrNothing(t *testing.T) {
	for _, c := range []struct {
		name, content, index string
	}{
		{"topic too large", strings.Repeat("x", 400), "# Team\n"},
		{"index too large", "# DB\n", "# Team\n" + strings.Repeat("- [A](a.md) — a topic\n", 11)},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv, cs := start(t, c.index)
			refused, text := call(t, cs, "write_memory", map[string]any{"repo": repo, "key": "notes/db.md", "content": c.content,
				"index_line": "- [DB](notes/db.md) — why Postgres"})
			if !refused || !strings.Contains(text, "entry_too_large") || !strings.Contains(text, "nothing was written") {
				t.Errorf("write_memory answered refused=%v %q; want a refusal saying nothing was written", refused, text)
			}
			if v, entries := live(t, srv); v != 1 || len(entries) != 1 || entries["MEMORY.md"] != c.index {
				t.Errorf("the refused write left version %d with %q; want version 1 with the index as it was", v, entries)
			}
		})
	}
}

// TestIndexLinkShapes: the link shapes every surface reads alike are
// accepted by write_memory as the key's index line, and removed from the
// index by delete_memory.
func TestIndexLinkShapes(t *testing.T) {
	for key, line := range map[string]string{
		"topics/a b.md": "- [A](<topics/a b.md>) — spaces",
		"b.md":          "- [A [nested]](b.md) — brackets",
		"f(1).md":       "- [A](f(1).md) — parentheses",
	} {
		t.Run(key, func(t *testing.T) {
			srv, cs := start(t, "# Team\n")
			if refused, text := call(t, cs, "write_memory", map[string]any{"repo": repo, "key": key, "content": "# Note\n", "index_line": line}); refused {
				t.Fatalf("write_memory refused %q: %s", line, text)
			}
			if _, entries := live(t, srv); entries["MEMORY.md"] != "# Team\n"+line+"\n" || entries[key] != "# Note\n" {
				t.Fatalf("after write_memory: %q", entries)
			}
			if refused, text := call(t, cs, "delete_memory", map[string]any{"repo": repo, "key": key}); refused {
				t.Fatalf("delete_memory refused: %s", text)
			}
			if _, entries := live(t, srv); entries["MEMORY.md"] != "# Team\n" || len(entries) != 1 {
				t.Errorf("after delete_memory: %q; want the index without the line", entries)
			}
		})
	}
}
