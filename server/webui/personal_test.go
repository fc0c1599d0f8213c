package webui_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/testkit/servertest"
)

// TestUIPersonalMemory: a signed-in user sees their own personal memory,
// apart from the team repositories, and opens it; a second subject holding
// **:admin is not shown it and gets the same 403 page for it as for a
// personal repository that does not exist, on every page.
func TestUIPersonalMemory(t *testing.T) {
	ts := newTestServer(t, servertest.Options{})
	ts.Put("acme/api", map[string]string{"MEMORY.md": "# team index\n"}, nil, http.StatusOK)
	alice := ts.Token("alice", "acme/*:read")
	body, _ := json.Marshal(api.PutRequest{Entries: map[string]string{"MEMORY.md": "- [Plan](plan.md) — mine\n", "plan.md": "my zebra plan\n"}})
	if r := ts.Do(http.MethodPut, api.PathTeamMemory+"?repo=~/acme/api", alice, body); r.Status != http.StatusOK {
		t.Fatalf("PUT: %d %s", r.Status, r.Body)
	}
	mine := server.PersonalRepo("alice", "acme/api")

	b := ts.browser(t)
	b.signIn(alice)
	home := b.get("/ui/").must(t, http.StatusOK)
	team, personal, ok := strings.Cut(home.Body, "Your personal memory")
	if !ok || !strings.Contains(team, `href="/ui/r/acme/api"`) || strings.Contains(team, mine) ||
		!strings.Contains(personal, `href="/ui/r/`+mine+`"`) || !strings.Contains(personal, "~/acme/api") {
		t.Fatalf("home page does not list the team repository and, apart, the personal memory:\n%s", home.Body)
	}
	repo := b.get("/ui/r/"+mine).must(t, http.StatusOK)
	if !strings.Contains(repo.Body, "~/acme/api") || !strings.Contains(repo.Body, "plan.md") {
		t.Errorf("personal repository page:\n%s", repo.Body)
	}
	b.get("/ui/r/"+mine+"/~entry?key=plan.md").must(t, http.StatusOK)
	if s := b.get("/ui/r/"+mine+"/~search?q=zebra").must(t, http.StatusOK); !strings.Contains(s.Body, "plan.md") {
		t.Errorf("search of the personal memory finds nothing:\n%s", s.Body)
	}

	root := ts.browser(t)
	root.signIn(ts.Token("root", "**:admin"))
	if home := root.get("/ui/").must(t, http.StatusOK); strings.Contains(home.Body, "personal memory") || strings.Contains(home.Body, "~") {
		t.Errorf("the admin's home page shows personal memory:\n%s", home.Body)
	}
	absent := server.PersonalRepo("alice", "acme/none")
	for _, suffix := range []string{"", "/~entry?key=plan.md", "/~entry?key=plan.md&v=1", "/~search?q=zebra", "/~activity"} {
		exists := root.get("/ui/r/"+mine+suffix).must(t, http.StatusForbidden)
		other := root.get("/ui/r/"+absent+suffix).must(t, http.StatusForbidden)
		if strings.ReplaceAll(other.Body, "acme/none", "acme/api") != exists.Body {
			t.Errorf("%s: the admin's 403 page differs for an existing and an absent personal repository:\n%s\n----\n%s", suffix, exists.Body, other.Body)
		}
		if strings.Contains(exists.Body, "zebra") || strings.Contains(exists.Body, "Plan") {
			t.Errorf("%s: the 403 page shows content", suffix)
		}
	}
}
