//go:build unix

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/mcptools"
	"github.com/teammem/teammem/memcore/protocol"
	"github.com/teammem/teammem/memcore/secrets/secretstest"
	"github.com/teammem/teammem/testkit/proctest"
)

// TestMCPTools drives every tool over both transports against the real
// server: the list of tools and their hints, a topic written with its
// index line, conditional writes, history, delete with its index line,
// and refusals (secret, hostile keys) that store nothing.
func TestMCPTools(t *testing.T) {
	for name, open := range mcpTransports {
		t.Run(name, func(t *testing.T) {
			srv := startAuthServer(t)
			s := open(t, srv, srv.admin)
			checkToolList(t, s)
			checkWriteReadDelete(t, s)
			checkRefusals(t, srv, s)
			if name == "http" {
				checkToolLog(t, srv)
			}
		})
	}
}

func checkToolList(t *testing.T, s *sdk.ClientSession) {
	t.Helper()
	if n := len(s.InitializeResult().Instructions); n == 0 || n > 2048 {
		t.Errorf("instructions are %d bytes; want 1..2048", n)
	}
	tools, err := s.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
		readOnly := tl.Annotations != nil && tl.Annotations.ReadOnlyHint
		if want := !slices.Contains([]string{"write_memory", "delete_memory", "review_proposal"}, tl.Name); readOnly != want {
			t.Errorf("%s: readOnlyHint %v, want %v", tl.Name, readOnly, want)
		}
		if !readOnly && !strings.Contains(tl.Description, "side effect") {
			t.Errorf("%s: the description names no side effect: %q", tl.Name, tl.Description)
		}
	}
	slices.Sort(names)
	want := []string{"delete_memory", "list_memories", "list_proposals", "memory_health", "memory_history", "read_memory", "review_proposal", "search_memories", "write_memory"}
	if !slices.Equal(names, want) {
		t.Errorf("tools %v, want %v", names, want)
	}
	// The input schemas, given to the SDK as JSON text, are listed as
	// inferred from the tools' inputs and still checked on every call.
	for _, tl := range tools.Tools {
		if tl.Name != "read_memory" {
			continue
		}
		var schema struct {
			Type       string                     `json:"type"`
			Required   []string                   `json:"required"`
			Properties map[string]json.RawMessage `json:"properties"`
		}
		text, _ := json.Marshal(tl.InputSchema)
		if err := json.Unmarshal(text, &schema); err != nil || schema.Type != "object" || !slices.Equal(schema.Required, []string{"key"}) ||
			len(schema.Properties) != 3 || !strings.Contains(string(schema.Properties["version"]), `"integer"`) {
			t.Errorf("read_memory's input schema: %s (%v)", text, err)
		}
	}
	res, err := s.CallTool(context.Background(), &sdk.CallToolParams{Name: "read_memory", Arguments: map[string]any{"repo": repo, "key": "MEMORY.md", "version": "seven"}})
	if err == nil && !res.IsError {
		t.Errorf("read_memory with a string version was not refused: %+v", res)
	}
}

func checkWriteReadDelete(t *testing.T, s *sdk.ClientSession) {
	t.Helper()
	const key = "testing/flaky-db.md"
	content := "---\ndescription: Why the DB tests flake and the fix\n---\nThe pool is shared; run with -p 1.\n"
	line := "- [Flaky DB tests](testing/flaky-db.md) — why and the fix"
	var w mcptools.WriteOutput
	call(t, s, "write_memory", map[string]any{"repo": repo, "key": key, "content": content, "index_line": line}, &w)
	if !w.Changed || !w.IndexUpdated || w.Checksum != protocol.EntryChecksum([]byte(content)) {
		t.Fatalf("write_memory: %+v", w)
	}
	var idx mcptools.ReadOutput
	call(t, s, "read_memory", map[string]any{"repo": repo, "key": "MEMORY.md"}, &idx)
	if idx.Content != line+"\n" {
		t.Fatalf("MEMORY.md is %q; want the index line", idx.Content)
	}
	// The same key with a new line replaces its line, not adds one.
	line2 := "- [Flaky DB tests](testing/flaky-db.md) — run with -p 1"
	call(t, s, "write_memory", map[string]any{"repo": repo, "key": key, "content": content, "index_line": line2}, &w)
	call(t, s, "read_memory", map[string]any{"repo": repo, "key": "MEMORY.md"}, &idx)
	if idx.Content != line2+"\n" {
		t.Fatalf("MEMORY.md is %q after a second index line; want it replaced", idx.Content)
	}

	var found mcptools.SearchOutput
	call(t, s, "search_memories", map[string]any{"query": "shared pool", "repo": repo}, &found)
	if len(found.Hits) != 1 || found.Hits[0].Key != key || found.Hits[0].Repo != repo || !strings.Contains(found.Hits[0].Snippet, "pool") {
		t.Errorf("search_memories: %+v", found)
	}
	call(t, s, "search_memories", map[string]any{"query": "shared pool"}, &found)
	if len(found.Hits) != 1 {
		t.Errorf("search_memories in every repository: %+v", found)
	}
	refused(t, s, "search_memories", map[string]any{"query": ""})

	var list mcptools.ListOutput
	call(t, s, "list_memories", map[string]any{"repo": repo}, &list)
	if len(list.Memories) != 2 || list.Memories[0].Key != "MEMORY.md" || list.Memories[1].Description != "Why the DB tests flake and the fix" ||
		list.Memories[1].Author != "admin" || list.Memories[1].UpdatedAt == "" || list.Memories[1].Size != int64(len(content)) {
		t.Fatalf("list_memories: %+v", list)
	}

	// A conditional write with a stale checksum is refused, naming the
	// current one; with the current one it applies.
	var r mcptools.ReadOutput
	call(t, s, "read_memory", map[string]any{"repo": repo, "key": key}, &r)
	stale := protocol.EntryChecksum([]byte("old"))
	msg := refused(t, s, "write_memory", map[string]any{"repo": repo, "key": key, "content": "x\n", "expected_checksum": stale})
	if !strings.Contains(msg, r.Checksum) {
		t.Errorf("stale expected_checksum: %q does not name the current checksum %s", msg, r.Checksum)
	}
	call(t, s, "write_memory", map[string]any{"repo": repo, "key": key, "content": "v2\n", "expected_checksum": r.Checksum}, &w)
	var old mcptools.ReadOutput
	call(t, s, "read_memory", map[string]any{"repo": repo, "key": key, "version": r.Version}, &old)
	if old.Content != content {
		t.Errorf("read_memory at version %d: %q", r.Version, old.Content)
	}

	var h mcptools.HistoryOutput
	call(t, s, "memory_history", map[string]any{"repo": repo, "key": key}, &h)
	if len(h.Items) != 2 || h.Items[0].Op != "put" || h.Items[0].Author != "admin" {
		t.Errorf("memory_history of %s: %+v", key, h.Items)
	}
	call(t, s, "memory_history", map[string]any{"repo": repo}, &h)
	if len(h.Items) != 3 {
		t.Errorf("memory_history of the repo: %d versions, want 3: %+v", len(h.Items), h.Items)
	}

	var d mcptools.DeleteOutput
	call(t, s, "delete_memory", map[string]any{"repo": repo, "key": key}, &d)
	if !d.IndexUpdated {
		t.Errorf("delete_memory: %+v; want the index line removed", d)
	}
	call(t, s, "read_memory", map[string]any{"repo": repo, "key": "MEMORY.md"}, &idx)
	if idx.Content != "" {
		t.Errorf("MEMORY.md after the delete: %q", idx.Content)
	}
	if msg := refused(t, s, "read_memory", map[string]any{"repo": repo, "key": key}); !strings.Contains(msg, "deleted") {
		t.Errorf("read_memory of a deleted key: %q", msg)
	}
	refused(t, s, "delete_memory", map[string]any{"repo": repo, "key": key})
}

// checkRefusals writes a credential, in content and in a key, and hostile
// keys: each is a tool error that says why (the rule id, never the
// secret) and nothing is stored.
func checkRefusals(t *testing.T, srv *authServer, s *sdk.ClientSession) {
	t.Helper()
	before := srv.entries(repo)
	secret := secretstest.GitHubToken()
	for _, idx := range []string{"", "- [Deploy](deploy.md) — how"} {
		msg := refused(t, s, "write_memory", map[string]any{"repo": repo, "key": "deploy.md", "content": "token: " + secret + "\n", "index_line": idx})
		if !strings.Contains(msg, "github-pat") || strings.Contains(msg, secret) {
			t.Errorf("secret refused as %q; want the rule id and not the secret", msg)
		}
		msg = refused(t, s, "write_memory", map[string]any{"repo": repo, "key": "keys/" + secret + ".md", "content": "where the key lives\n", "index_line": strings.ReplaceAll(idx, "deploy.md", "keys/"+secret+".md")})
		if !strings.Contains(msg, "github-pat") || !strings.Contains(msg, "[REDACTED]") || strings.Contains(msg, secret) {
			t.Errorf("a key holding a secret refused as %q; want the rule id and the key redacted", msg)
		}
	}
	for _, key := range []string{"../escape.md", "/etc/passwd.md", "a\x00b.md", "CON.md", ".git/config.md", "x\u202e.md", strings.Repeat("k", 2000) + ".md", "notes.exe", ""} {
		msg := refused(t, s, "write_memory", map[string]any{"repo": repo, "key": key, "content": "hi\n", "index_line": "- [x](x.md)"})
		if len(msg) > 600 {
			t.Errorf("key %.20q: a %d-byte message", key, len(msg))
		}
		refused(t, s, "write_memory", map[string]any{"repo": repo, "key": key, "content": "hi\n"})
		refused(t, s, "read_memory", map[string]any{"repo": repo, "key": key})
	}
	refused(t, s, "list_memories", map[string]any{"repo": "../../etc"})
	if after := srv.entries(repo); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("refused writes changed the repository: %v → %v", before, after)
	}
}

// checkToolLog checks the server's line per tool call: the tool and its
// outcome, never the content, the token or the secret.
func checkToolLog(t *testing.T, srv *authServer) {
	t.Helper()
	proctest.WaitFor(t, "the tool call lines", func() bool { return strings.Contains(srv.stderr.String(), "mcp tool call") })
	log := srv.stderr.String()
	for _, want := range []string{"tool=write_memory", "outcome=refused", "outcome=ok", "subject=admin"} {
		if !strings.Contains(log, want) {
			t.Errorf("the server log has no %q", want)
		}
	}
	for _, never := range []string{srv.admin, "ghp_", "The pool is shared"} {
		if strings.Contains(log, never) {
			t.Errorf("the server log holds %.20q", never)
		}
	}
}

// TestMCPGrants checks that the endpoint answers 401 without a token, that
// a token without a grant for a repository learns nothing of it and a read
// token cannot write, over both transports.
func TestMCPGrants(t *testing.T) {
	srv := startAuthServer(t)
	if _, err := srv.api.Put(context.Background(), "secret/plans", api.PutRequest{Entries: map[string]string{"MEMORY.md": "- [x](x.md)\n", "x.md": "hidden\n"}}, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.api.Put(context.Background(), repo, api.PutRequest{Entries: map[string]string{"a.md": "A\n"}}, ""); err != nil {
		t.Fatal(err)
	}
	for _, tok := range []string{"", "not-a-jwt"} {
		req, _ := http.NewRequest(http.MethodPost, srv.url()+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if tok != "" {
			req.Header.Set("Authorization", "Bearer "+tok)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") == "" {
			t.Errorf("token %q: %d %v; want 401 with WWW-Authenticate", tok, resp.StatusCode, resp.Header)
		}
	}
	reader := srv.token(t, "reader", repo+":read")
	for name, open := range mcpTransports {
		t.Run(name, func(t *testing.T) {
			s := open(t, srv, reader)
			var list mcptools.ListOutput
			call(t, s, "list_memories", map[string]any{"repo": repo}, &list)
			if len(list.Memories) != 1 {
				t.Errorf("list_memories with a read grant: %+v", list)
			}
			var found mcptools.SearchOutput
			call(t, s, "search_memories", map[string]any{"query": "hidden"}, &found)
			if len(found.Hits) != 0 {
				t.Errorf("search_memories without a grant for secret/plans found %+v", found.Hits)
			}
			for _, c := range []struct {
				tool string
				args map[string]any
			}{
				{"search_memories", map[string]any{"query": "anything", "repo": "secret/plans"}},
				{"list_memories", map[string]any{"repo": "secret/plans"}},
				{"list_memories", map[string]any{"repo": "secret/none"}},
				{"read_memory", map[string]any{"repo": "secret/plans", "key": "x.md"}},
				{"memory_history", map[string]any{"repo": "secret/plans"}},
				{"memory_history", map[string]any{"repo": "secret/plans", "key": "x.md"}},
			} {
				msg := refused(t, s, c.tool, c.args)
				if strings.Contains(msg, "hidden") || !strings.Contains(msg, "grant") {
					t.Errorf("%s %v without a grant: %q", c.tool, c.args, msg)
				}
			}
			for _, args := range []map[string]any{
				{"repo": repo, "key": "b.md", "content": "B\n"},
				{"repo": repo, "key": "b.md", "content": "B\n", "index_line": "- [B](b.md)"},
			} {
				if msg := refused(t, s, "write_memory", args); !strings.Contains(msg, "write") {
					t.Errorf("write with a read token: %q", msg)
				}
			}
			if msg := refused(t, s, "delete_memory", map[string]any{"repo": repo, "key": "a.md"}); !strings.Contains(msg, "write") {
				t.Errorf("delete with a read token: %q", msg)
			}
		})
	}
	if got := srv.entries(repo); len(got) != 1 {
		t.Errorf("the read token changed %s: %v", repo, got)
	}
}

// TestMCPThousandEntries fills a repository to its 1,000-entry limit
// through the REST API and write_memory (998 topics, one more and its
// index), lists and reads it over /mcp, and
// checks that the 1,001st entry is refused as a tool error.
func TestMCPThousandEntries(t *testing.T) {
	srv := startAuthServer(t)
	entries := map[string]string{}
	for i := range 998 {
		entries[fmt.Sprintf("topics/%04d.md", i)] = fmt.Sprintf("---\ndescription: topic %d\n---\nbody %d\n", i, i)
	}
	if _, err := srv.api.Put(context.Background(), repo, api.PutRequest{Entries: entries}, ""); err != nil {
		t.Fatal(err)
	}
	s := mcpHTTP(t, srv, srv.admin)
	call(t, s, "write_memory", map[string]any{"repo": repo, "key": "topics/last.md", "content": "last\n", "index_line": "- [Last](topics/last.md)"}, nil)
	var list mcptools.ListOutput
	call(t, s, "list_memories", map[string]any{"repo": repo}, &list)
	if len(list.Memories) != 1000 || list.Memories[0].Key != "MEMORY.md" || list.Memories[500].Description == "" {
		t.Fatalf("list_memories: %d memories, first %+v", len(list.Memories), list.Memories[0])
	}
	var r mcptools.ReadOutput
	call(t, s, "read_memory", map[string]any{"repo": repo, "key": "topics/0500.md"}, &r)
	if r.Content != entries["topics/0500.md"] {
		t.Errorf("read_memory: %q", r.Content)
	}
	if msg := refused(t, s, "write_memory", map[string]any{"repo": repo, "key": "one-too-many.md", "content": "x\n"}); !strings.Contains(msg, "1000") {
		t.Errorf("the 1,001st entry: %q; want the limit named", msg)
	}
}
