package mcp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/teammem/teammem/server/postgres"
	"github.com/teammem/teammem/testkit/pgtest"
	"github.com/teammem/teammem/testkit/servertest"
)

// TestMemoryHealth: memory_health reports the findings GET
// /api/v1/health does, on both stores, and only to a reader of the
// repository.
func TestMemoryHealth(t *testing.T) {
	for _, name := range []string{"sqlite", "postgres"} {
		t.Run(name, func(t *testing.T) {
			o := servertest.Options{}
			if name == "postgres" {
				db, err := postgres.Open(context.Background(), pgtest.URL(t), postgres.Options{Migrate: true})
				if err != nil {
					t.Fatal(err)
				}
				o.Store = db
			}
			srv := servertest.Start(t, o)
			srv.Put(repo, map[string]string{
				"MEMORY.md": "- [a](a.md) — a\n- [gone](gone.md) — gone\n",
				"a.md":      "Use PgBouncer.\n", "b.md": "use  pgbouncer.\n",
			}, nil, http.StatusOK)
			cs := connectAs(t, srv, srv.Token("rita", repo+":read"))
			refused, text := call(t, cs, "memory_health", map[string]any{"repo": repo})
			if refused {
				t.Fatalf("refused: %s", text)
			}
			var out struct {
				Repo     string
				Findings []struct{ Kind string }
			}
			if err := json.Unmarshal([]byte(text), &out); err != nil {
				t.Fatal(err)
			}
			var kinds []string
			for _, f := range out.Findings {
				kinds = append(kinds, f.Kind)
			}
			if got := strings.Join(kinds, ","); out.Repo != repo || got != "duplicate,dangling-link,orphan-topic" {
				t.Errorf("%s: %s", out.Repo, got)
			}
			other := connectAs(t, srv, srv.Token("otto", "acme/web:admin"))
			if refused, text := call(t, other, "memory_health", map[string]any{"repo": repo}); !refused || strings.Contains(text, "pgbouncer") {
				t.Errorf("a caller without a grant got %v %s", refused, text)
			}
		})
	}
}
