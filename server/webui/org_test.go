package webui_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/teammem/teammem/server/postgres"
	"github.com/teammem/teammem/testkit/pgtest"
	"github.com/teammem/teammem/testkit/servertest"
)

// TestOrgMemoryPages: a repository's page shows the index of every org
// memory that applies to it (nearest first) that the caller reads; the org
// memory's own page says whose it is and lists the repositories of its
// namespace the caller reads; a reader of another namespace sees none of
// it; on both stores.
func TestOrgMemoryPages(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) { testOrgMemoryPages(t, newTestServer(t, servertest.Options{})) })
	t.Run("postgres", func(t *testing.T) {
		db, err := postgres.Open(context.Background(), pgtest.URL(t), postgres.Options{Migrate: true})
		if err != nil {
			t.Fatal(err)
		}
		testOrgMemoryPages(t, newTestServer(t, servertest.Options{Store: db}))
	})
}

func testOrgMemoryPages(t *testing.T, ts *testServer) {
	for r, line := range map[string]string{"acme/.memory": "Deploy on tuesdays", "acme/api": "API notes", "acme/web": "Web notes",
		"group/.memory": "Group rules", "group/sub/.memory": "Sub rules", "group/sub/proj": "Proj notes"} {
		ts.Put(r, map[string]string{"MEMORY.md": "- [" + line + "](x.md) — hook\n", "x.md": "x\n"}, nil, http.StatusOK)
	}
	b := ts.browser(t)
	b.signIn(ts.Token("ana", "acme/api:read", "group/sub/proj:read"))

	api := b.get("/ui/r/acme/api")
	if api.Status != http.StatusOK || !strings.Contains(api.Body, "Org memory of acme") || !strings.Contains(api.Body, "Deploy on tuesdays") ||
		strings.Index(api.Body, "API notes") > strings.Index(api.Body, "Deploy on tuesdays") {
		t.Errorf("acme/api page: %d\n%s", api.Status, api.Body)
	}
	proj := b.get("/ui/r/group/sub/proj").Body
	if i, j := strings.Index(proj, "Sub rules"), strings.Index(proj, "Group rules"); i < 0 || j < i {
		t.Errorf("group/sub/proj page: sub at %d, group at %d", i, j)
	}
	org := b.get("/ui/r/acme/.memory")
	if org.Status != http.StatusOK || !strings.Contains(org.Body, "The org memory of <strong>acme</strong>") ||
		!strings.Contains(org.Body, `href="/ui/r/acme/api"`) || strings.Contains(org.Body, "acme/web") {
		t.Errorf("acme/.memory page: %d\n%s", org.Status, org.Body)
	}
	if home := b.get("/ui/").Body; !strings.Contains(home, "org memory of acme") || strings.Contains(home, "acme/web") {
		t.Errorf("home:\n%s", home)
	}

	corp := ts.browser(t)
	corp.signIn(ts.Token("cora", "acme-corp/*:read"))
	if p := corp.get("/ui/r/acme/.memory"); p.Status != http.StatusForbidden {
		t.Errorf("acme-corp reader on acme/.memory: %d", p.Status)
	}
	if home := corp.get("/ui/").Body; strings.Contains(home, "/ui/r/acme/") || strings.Contains(home, "org memory of acme") {
		t.Errorf("acme-corp reader's home shows acme:\n%s", home)
	}
}
