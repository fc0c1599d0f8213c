package webui_test

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/testkit/servertest"
)

// TestUIRestoreProvenance: a restore through the UI is stamped with the
// restore surface, the session (its id, never its cookie) as credential,
// the browser's User-Agent as client, and whatever Teammem- headers the
// request holds left out; the entry's history shows who wrote each
// version through what.
func TestUIRestoreProvenance(t *testing.T) {
	ts := newTestServer(t, servertest.Options{})
	ts.Put("acme/api", map[string]string{"notes.md": "first\n"}, nil, http.StatusOK, api.HeaderMachine, "build-01")
	ts.Put("acme/api", map[string]string{"notes.md": "second\n"}, nil, http.StatusOK)
	b := ts.browser(t)
	b.signIn(ts.Token("ana", "acme/*:write"))
	e := b.get("/ui/r/acme/api/~entry?key=notes.md").must(t, http.StatusOK)
	b.post("/ui/r/acme/api/~restore", b.restoreForm(t, e, "notes.md", "1"), "User-Agent", "Mozilla/5.0 Firefox/140.0",
		api.HeaderMachine, "forged", api.HeaderSurface, "seed").must(t, http.StatusSeeOther)

	revs, err := ts.Service.History(context.Background(), server.Principal{Subject: "admin",
		Grants: []server.Grant{{Glob: []string{"**"}, Perm: server.PermRead}}}, "acme/api", "notes.md", 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	p := revs[0].Provenance
	if p.Subject != "ana" || p.Surface != server.SurfaceRestore || p.Client != "Mozilla/5.0 Firefox/140.0" || p.Machine != "" ||
		!regexp.MustCompile(`^session:[A-Za-z0-9_-]{43}$`).MatchString(p.Credential) {
		t.Errorf("restore provenance %+v", p)
	}
	for _, c := range b.client.Jar.Cookies(mustURL(t, ts.URL+"/ui/")) {
		if strings.Contains(p.Credential, c.Value) {
			t.Errorf("the credential %q holds the cookie %s", p.Credential, c.Name)
		}
	}
	page := b.get("/ui/r/acme/api/~entry?key=notes.md").must(t, http.StatusOK)
	for _, want := range []string{`<span class="surface">restore</span>`, `<span class="surface">agent</span>`, "on build-01",
		`title="` + p.Credential + `"`, "~blame?key=notes.md"} {
		if !strings.Contains(page.Body, want) {
			t.Errorf("the entry page lacks %q", want)
		}
	}
	if feed := b.get("/ui/r/acme/api/~activity").must(t, http.StatusOK); !strings.Contains(feed.Body, "via restore") {
		t.Errorf("the activity feed does not say the restore's surface:\n%s", feed.Body)
	}
}

// TestUIBlame: the blame page shows every line, escaped, with the version
// that introduced it, who wrote it and through what, once per run of
// lines; at a version, the entry as it stood then; a deleted entry has no
// lines.
func TestUIBlame(t *testing.T) {
	ts := newTestServer(t, servertest.Options{})
	ana, bob := ts.Token("ana", "acme/*:write"), ts.Token("bob", "acme/*:write")
	put := func(token, content string, headers ...string) {
		t.Helper()
		body, _ := json.Marshal(api.PutRequest{Entries: map[string]string{"MEMORY.md": content}})
		if r := ts.Do(http.MethodPut, api.PathTeamMemory+"?repo=acme/api", token, body, headers...); r.Status != http.StatusOK {
			t.Fatalf("PUT: %d %s", r.Status, r.Body)
		}
	}
	put(ana, "- [Deploys](deploys.md)\n- [Style](style.md)\n", api.HeaderMachine, "ana-laptop")
	put(bob, "- [Deploys](deploys.md)\n- <script>alert(1)</script>\n- [Style](style.md)\n", api.HeaderSurface, "mcp")
	b := ts.browser(t)
	b.signIn(ts.Admin)
	page := b.get("/ui/r/acme/api/~blame?key=MEMORY.md").must(t, http.StatusOK)
	rows := regexp.MustCompile(`(?s)<tr[^>]*>.*?</tr>`).FindAllString(page.Body, -1)
	if len(rows) != 4 { // the header and three lines
		t.Fatalf("%d rows:\n%s", len(rows), page.Body)
	}
	for i, want := range []string{"v1.*ana.*agent.*on ana-laptop.*- \\[Deploys\\]", "v2.*bob.*mcp.*&lt;script&gt;", "v1.*ana.*- \\[Style\\]"} {
		if !regexp.MustCompile(`(?s)` + want).MatchString(rows[i+1]) {
			t.Errorf("row %d does not match %s:\n%s", i+1, want, rows[i+1])
		}
	}
	if strings.Contains(page.Body, "<script>") {
		t.Error("a line reached the page unescaped")
	}
	if old := b.get("/ui/r/acme/api/~blame?key=MEMORY.md&v=1").must(t, http.StatusOK); strings.Contains(old.Body, "script") {
		t.Errorf("the blame at version 1 shows a line of version 2:\n%s", old.Body)
	}
	ts.Put("acme/api", nil, []string{"MEMORY.md"}, http.StatusOK)
	if gone := b.get("/ui/r/acme/api/~blame?key=MEMORY.md").must(t, http.StatusOK); !strings.Contains(gone.Body, "Deleted in version 3") ||
		!strings.Contains(gone.Body, "~blame?key=MEMORY.md&amp;v=2") {
		t.Errorf("the blame of a deleted entry:\n%s", gone.Body)
	}
	b.get("/ui/r/acme/api/~blame?key=never.md").must(t, http.StatusNotFound)
	other := ts.browser(t)
	other.signIn(ts.Token("eve", "globex/*:read"))
	other.get("/ui/r/acme/api/~blame?key=MEMORY.md").must(t, http.StatusForbidden)
}
