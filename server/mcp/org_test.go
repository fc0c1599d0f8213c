package mcp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/teammem/teammem/server/postgres"
	"github.com/teammem/teammem/testkit/pgtest"
	"github.com/teammem/teammem/testkit/servertest"
)

// connectAs connects an MCP client to srv with token.
func connectAs(t *testing.T, srv *servertest.Server, token string) *sdk.ClientSession {
	t.Helper()
	tr := &sdk.StreamableClientTransport{Endpoint: srv.URL + "/mcp", HTTPClient: &http.Client{Transport: bearer(token)}}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(t.Context(), tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// TestOrgMemoryTools: list_memories and search_memories of a repository
// include its org memories (nested groups, nearest first) marked as such,
// none the caller may not read; write_memory writes an org memory for a
// literal grant and refuses a glob write grant; on both stores.
func TestOrgMemoryTools(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) { testOrgMemoryTools(t, servertest.Start(t, servertest.Options{})) })
	t.Run("postgres", func(t *testing.T) {
		db, err := postgres.Open(context.Background(), pgtest.URL(t), postgres.Options{Migrate: true})
		if err != nil {
			t.Fatal(err)
		}
		testOrgMemoryTools(t, servertest.Start(t, servertest.Options{Store: db}))
	})
}

func testOrgMemoryTools(t *testing.T, srv *servertest.Server) {
	for r, note := range map[string]string{"acme/.memory": "deploy on tuesdays", "acme/api": "api deploy notes", "acme/web": "web deploy notes",
		"group/.memory": "group deploy rules", "group/sub/.memory": "sub deploy rules", "group/sub/proj": "proj deploy notes"} {
		srv.Put(r, map[string]string{"MEMORY.md": "- [Deploy](deploy.md) — " + note + "\n", "deploy.md": note + "\n"}, nil, http.StatusOK)
	}
	reader := connectAs(t, srv, srv.Token("ana", "acme/api:read", "group/sub/proj:read"))

	var list struct {
		Repo string `json:"repo"`
		Org  []struct {
			Repo, Namespace string
		} `json:"org_memories"`
	}
	_, text := call(t, reader, "list_memories", map[string]any{"repo": "group/sub/proj"})
	if err := json.Unmarshal([]byte(text), &list); err != nil {
		t.Fatalf("%v: %s", err, text)
	}
	if len(list.Org) != 2 || list.Org[0].Repo != "group/sub/.memory" || list.Org[0].Namespace != "group/sub" || list.Org[1].Repo != "group/.memory" {
		t.Errorf("list_memories of group/sub/proj: %s", text)
	}

	search := func(cs *sdk.ClientSession, repo string) []string {
		args := map[string]any{"query": "deploy"}
		if repo != "" {
			args["repo"] = repo
		}
		refused, text := call(t, cs, "search_memories", args)
		if refused {
			return []string{"refused: " + text}
		}
		var out struct {
			Hits []struct {
				Repo string `json:"repo"`
				Org  bool   `json:"org_memory"`
			} `json:"hits"`
		}
		if err := json.Unmarshal([]byte(text), &out); err != nil {
			t.Fatalf("%v: %s", err, text)
		}
		var got []string
		for _, h := range out.Hits {
			if h.Org != strings.HasSuffix(h.Repo, "/.memory") {
				t.Errorf("hit in %s marked org_memory=%v", h.Repo, h.Org)
			}
			got = append(got, h.Repo)
		}
		return slices.Compact(got)
	}
	if got := search(reader, "acme/api"); !slices.Equal(got, []string{"acme/api", "acme/.memory"}) {
		t.Errorf("search in acme/api: %q", got)
	}
	all := search(reader, "")
	slices.Sort(all)
	all = slices.Compact(all)
	if !slices.Equal(all, []string{"acme/.memory", "acme/api", "group/.memory", "group/sub/.memory", "group/sub/proj"}) {
		t.Errorf("search everywhere: %q", all)
	}
	if got := search(reader, "acme/web"); len(got) != 1 || !strings.HasPrefix(got[0], "refused") {
		t.Errorf("search in acme/web: %q", got)
	}
	corp := connectAs(t, srv, srv.Token("cora", "acme-corp/*:read"))
	if got := search(corp, ""); len(got) != 0 {
		t.Errorf("acme-corp reader finds %q", got)
	}

	write := func(cs *sdk.ClientSession) (bool, string) {
		return call(t, cs, "write_memory", map[string]any{"repo": "acme/.memory", "key": "review.md", "content": "two approvals\n"})
	}
	if refused, text := write(connectAs(t, srv, srv.Token("gus", "acme/*:write", "acme/**:write"))); !refused || !strings.Contains(text, "acme/.memory") {
		t.Errorf("glob write grant wrote acme/.memory: refused=%v %s", refused, text)
	}
	if refused, text := write(connectAs(t, srv, srv.Token("lia", "acme/.memory:write"))); refused {
		t.Errorf("literal grant: %s", text)
	}
}
