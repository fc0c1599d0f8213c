package webui_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/postgres"
	"github.com/teammem/teammem/testkit/pgtest"
	"github.com/teammem/teammem/testkit/servertest"
)

// messyRepo has a finding of most kinds.
var messyRepo = map[string]string{
	"MEMORY.md": "- [Pool](pool.md) — pgbouncer\n- [Gone](gone.md) — deleted\n- [Tuning](tuning.md) — db\n",
	"pool.md":   "Use PgBouncer in transaction mode; pool_max_conns: 16\n",
	"pool-2.md": "use pgbouncer in   transaction mode; POOL_MAX_CONNS: 16\n",
	"tuning.md": "- pool_max_conns: 32\n",
	"orphan.md": "---\nname: Orphan <b>bold</b>\n---\nNobody links me.\n",
	"Q&A.md":    "x\n",
}

// openTidies returns the open proposals of acme/api.
func openTidies(t *testing.T, ts *testServer) []server.Proposal {
	t.Helper()
	props, err := ts.Store.(server.ReviewStore).Proposals(context.Background(),
		server.ProposalQuery{Repo: "acme/api", State: server.ProposalOpen, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	return props
}

// TestUIHealthPage: the page lists each finding with its fix, escaped;
// a writer gets the buttons and a reader none; a button proposes that
// finding's fix alone for review, once however often the form is sent,
// as the signed-in subject through the consolidation surface, writing
// nothing; on both stores.
func TestUIHealthPage(t *testing.T) {
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
			ts := newTestServer(t, o)
			ts.Put("acme/api", messyRepo, nil, http.StatusOK)
			reader := ts.browser(t)
			reader.signIn(ts.Token("rita", "acme/api:read"))
			pg := reader.get("/ui/r/acme/api/~health").must(t, http.StatusOK)
			for _, want := range []string{"duplicate", "conflicting-values", "dangling-link", "orphan-topic", "pool-2.md", "gone.md",
				"add a line linking orphan.md to MEMORY.md", "Q&amp;A.md"} {
				if !strings.Contains(pg.Body, want) {
					t.Errorf("the page lacks %q", want)
				}
			}
			if strings.Contains(pg.Body, "<b>") || strings.Contains(pg.Body, "Propose fix") {
				t.Errorf("the reader's page has a script tag or a fix button:\n%s", pg.Body)
			}
			if !strings.Contains(reader.get("/ui/r/acme/api").must(t, http.StatusOK).Body, `/ui/r/acme/api/~health"`) {
				t.Errorf("the repository page does not link the Health page")
			}
			writer := ts.browser(t)
			writer.signIn(ts.Token("wes", "acme/api:write"))
			wpg := writer.get("/ui/r/acme/api/~health").must(t, http.StatusOK)
			id := wpg.formValue(t, "add a line linking orphan.md", "finding")
			form := url.Values{"csrf": {wpg.csrf(t)}, "finding": {id}}
			done := writer.post("/ui/r/acme/api/~tidy", form).must(t, http.StatusOK)
			props := openTidies(t, ts)
			if len(props) != 1 || props[0].Author != "wes" || props[0].Provenance.Surface != server.SurfaceConsolidation ||
				props[0].Provenance.Client != "teammem tidy (web)" || !strings.Contains(props[0].Provenance.Credential, "session") {
				t.Fatalf("open proposals %+v; page:\n%s", props, done.Body)
			}
			if !strings.Contains(done.Body, fmt.Sprintf(`href="/ui/proposals/%d"`, props[0].ID)) {
				t.Errorf("the page does not link the proposal:\n%s", done.Body)
			}
			full, err := ts.Store.(server.ReviewStore).Proposal(context.Background(), props[0].ID)
			if c := full.Changes; err != nil || len(c) != 1 || c[0].Key != "MEMORY.md" || !strings.Contains(c[0].Content, "gone.md") ||
				!strings.Contains(c[0].Content, "(orphan.md)") || strings.Contains(c[0].Content, "<b>") {
				t.Errorf("the orphan's fix is not that alone: %+v, %v", c, err)
			}
			again := writer.post("/ui/r/acme/api/~tidy", form).must(t, http.StatusOK)
			if n := len(openTidies(t, ts)); n != 1 || !strings.Contains(again.Body, fmt.Sprintf("Proposal #%d", props[0].ID)) {
				t.Errorf("the form sent again: %d open proposals; page:\n%s", n, again.Body)
			}
			if st, _ := ts.Store.RepoState(context.Background(), "acme/api"); st.Version != 1 {
				t.Errorf("the proposal wrote: version %d", st.Version)
			}
			// Refusals: no CSRF token, a reader, another site.
			writer.post("/ui/r/acme/api/~tidy", url.Values{"finding": {id}}).must(t, http.StatusBadRequest)
			reader.post("/ui/r/acme/api/~tidy", url.Values{"csrf": {pg.csrf(t)}}).must(t, http.StatusForbidden)
			writer.post("/ui/r/acme/api/~tidy", url.Values{"csrf": {wpg.csrf(t)}}, "Sec-Fetch-Site", "cross-site").must(t, http.StatusForbidden)
			if n := len(openTidies(t, ts)); n != 1 {
				t.Errorf("a refused form made a proposal: %d open", n)
			}
		})
	}
}

// TestUIHealthOtherSubjects: no grant, no page and no tidy; another
// subject's personal repository is refused; a writer's button for every
// finding proposes with review off and writes nothing.
func TestUIHealthOtherSubjects(t *testing.T) {
	ts := newTestServer(t, servertest.Options{})
	ts.Put("acme/api", messyRepo, nil, http.StatusOK)
	b := ts.browser(t)
	b.signIn(ts.Token("otto", "acme/web:admin"))
	b.get("/ui/r/acme/api/~health").must(t, http.StatusForbidden)
	b.get("/ui/r/"+server.PersonalRepo("ana", "acme/api")+"/~health").must(t, http.StatusForbidden)
	w := ts.browser(t)
	w.signIn(ts.Token("wes", "acme/api:write"))
	pg := w.get("/ui/r/acme/api/~health").must(t, http.StatusOK)
	b.post("/ui/r/acme/api/~tidy", url.Values{"csrf": {b.get("/ui/").must(t, http.StatusOK).csrf(t)}}).must(t, http.StatusForbidden)
	if n := len(openTidies(t, ts)); n != 0 {
		t.Errorf("another repository's admin proposed: %d", n)
	}
	res := w.post("/ui/r/acme/api/~tidy", url.Values{"csrf": {pg.csrf(t)}}).must(t, http.StatusOK)
	props := openTidies(t, ts)
	if len(props) != 1 || !strings.Contains(res.Body, "waits for an admin's review") {
		t.Fatalf("%d open proposals; page:\n%s", len(props), res.Body)
	}
	if prop := w.get(fmt.Sprintf("/ui/proposals/%d", props[0].ID)).must(t, http.StatusOK); !strings.Contains(prop.Body, `<p class="note">folded into pool.md</p>`) {
		t.Errorf("the proposal's page does not say pool-2.md was folded into pool.md:\n%s", prop.Body)
	}
	if st, _ := ts.Store.RepoState(context.Background(), "acme/api"); st.Version != 1 {
		t.Errorf("tidy wrote: version %d", st.Version)
	}
	tok := ts.Token("ana", "acme/web:read")
	ana := ts.browser(t)
	ana.signIn(tok)
	own := server.PersonalRepo("ana", "acme/api")
	body, _ := json.Marshal(api.PutRequest{Entries: messyRepo})
	if r := ts.Do(http.MethodPut, api.PathTeamMemory+"?repo="+own, tok, body); r.Status != http.StatusOK {
		t.Fatalf("ana's push: %d %s", r.Status, r.Body)
	}
	if pg := ana.get("/ui/r/"+own+"/~health").must(t, http.StatusOK); strings.Contains(pg.Body, "Propose") {
		t.Errorf("a personal repository, which nobody reviews, has fix buttons:\n%s", pg.Body)
	}
}
