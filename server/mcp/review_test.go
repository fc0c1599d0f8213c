package mcp_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/server/postgres"
	"github.com/teammem/teammem/testkit/pgtest"
	"github.com/teammem/teammem/testkit/servertest"
)

// TestToolsUnderReview: under "changes", write_memory and delete_memory of
// a writer succeed saying "proposed as #ID, awaiting review" and change
// nothing anyone reads; list_proposals shows them to readers;
// review_proposal is refused to the writer and approves for an admin; a
// second approval is refused.
func TestToolsUnderReview(t *testing.T) {
	for name, o := range map[string]func(t *testing.T) servertest.Options{
		"sqlite": func(*testing.T) servertest.Options { return servertest.Options{} },
		"postgres": func(t *testing.T) servertest.Options {
			db, err := postgres.Open(context.Background(), pgtest.URL(t), postgres.Options{Migrate: true})
			if err != nil {
				t.Fatal(err)
			}
			return servertest.Options{Store: db}
		},
	} {
		t.Run(name, func(t *testing.T) {
			srv := servertest.Start(t, o(t))
			srv.Put(repo, map[string]string{"db.md": "Use MySQL.\n", "old.md": "old\n"}, nil, http.StatusOK)
			if r := srv.Do(http.MethodPut, api.PathPolicy+"?repo="+repo, srv.Admin, []byte(`{"review":"changes"}`)); r.Status != http.StatusOK {
				t.Fatalf("set policy: %d %s", r.Status, r.Body)
			}
			bob := connectAs(t, srv, srv.Token("bob", "acme/api:write"))
			refused, out := call(t, bob, "write_memory", map[string]any{"repo": repo, "key": "db.md", "content": "Use Postgres.\n"})
			if refused || !strings.Contains(out, "proposed as #") || !strings.Contains(out, "awaiting review") {
				t.Fatalf("write_memory under review: refused %v: %s", refused, out)
			}
			refused, out = call(t, bob, "delete_memory", map[string]any{"repo": repo, "key": "old.md"})
			if refused || !strings.Contains(out, "proposed as #") {
				t.Fatalf("delete_memory under review: refused %v: %s", refused, out)
			}
			if _, got := live(t, srv); got["db.md"] != "Use MySQL.\n" || got["old.md"] != "old\n" {
				t.Errorf("live after the proposals: %v; want the reviewed state", got)
			}
			if _, out = call(t, bob, "read_memory", map[string]any{"repo": repo, "key": "db.md"}); !strings.Contains(out, "Use MySQL.") {
				t.Errorf("read_memory serves %s; want the reviewed text", out)
			}
			refused, out = call(t, bob, "list_proposals", map[string]any{"repo": repo})
			if refused || strings.Count(out, `"id":`) != 1 || !strings.Contains(out, `"db.md"`) || !strings.Contains(out, `"old.md"`) {
				t.Fatalf("list_proposals: refused %v: %s; want one proposal of db.md and old.md", refused, out)
			}
			if refused, out = call(t, bob, "review_proposal", map[string]any{"id": 1, "decision": "approve"}); !refused {
				t.Errorf("a writer approved: %s", out)
			}
			ada := connectAs(t, srv, srv.Admin)
			if refused, out = call(t, ada, "review_proposal", map[string]any{"id": 1, "decision": "approve", "comment": "ok"}); refused || !strings.Contains(out, `"approved"`) {
				t.Fatalf("approve: refused %v: %s", refused, out)
			}
			if refused, out = call(t, ada, "review_proposal", map[string]any{"id": 1, "decision": "approve"}); !refused || !strings.Contains(out, "no longer open") {
				t.Errorf("a second approval: refused %v: %s", refused, out)
			}
			if _, got := live(t, srv); got["db.md"] != "Use Postgres.\n" || got["old.md"] != "" {
				t.Errorf("live after approval: %v", got)
			}
		})
	}
}
