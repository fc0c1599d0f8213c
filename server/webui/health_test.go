package webui_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/health"
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

// recorder stands in for the review store: it records proposals.
type recorder struct {
	mu    sync.Mutex
	plans []health.TidyPlan
	by    []string
}

func (r *recorder) Propose(_ context.Context, by server.Principal, p health.TidyPlan) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.plans, r.by = append(r.plans, p), append(r.by, by.Subject)
	return "prop-1", nil
}

func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.plans)
}

// TestUIHealthPage: the page lists each finding with its fix, escaped;
// a writer gets the buttons and a reader none; a button proposes that
// finding's fix alone, once, for the signed-in subject, writing nothing;
// on both stores.
func TestUIHealthPage(t *testing.T) {
	for _, name := range []string{"sqlite", "postgres"} {
		t.Run(name, func(t *testing.T) {
			rec := &recorder{}
			o := servertest.Options{Proposer: rec}
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
			done := writer.post("/ui/r/acme/api/~tidy", url.Values{"csrf": {wpg.csrf(t)}, "finding": {id}}).must(t, http.StatusOK)
			if !strings.Contains(done.Body, "prop-1") || rec.count() != 1 || rec.by[0] != "wes" {
				t.Fatalf("proposals %d by %v; page:\n%s", rec.count(), rec.by, done.Body)
			}
			if c := rec.plans[0].Changes; len(c) != 1 || c[0].Key != "MEMORY.md" || !strings.Contains(c[0].Content, "gone.md") ||
				!strings.Contains(c[0].Content, "(orphan.md)") || strings.Contains(c[0].Content, "<b>") {
				t.Errorf("the orphan's fix is not that alone: %+v", c)
			}
			if st, _ := ts.Store.RepoState(context.Background(), "acme/api"); st.Version != 1 {
				t.Errorf("the proposal wrote: version %d", st.Version)
			}
			// Refusals: no CSRF token, a reader, another site.
			writer.post("/ui/r/acme/api/~tidy", url.Values{"finding": {id}}).must(t, http.StatusBadRequest)
			reader.post("/ui/r/acme/api/~tidy", url.Values{"csrf": {pg.csrf(t)}}).must(t, http.StatusForbidden)
			writer.post("/ui/r/acme/api/~tidy", url.Values{"csrf": {wpg.csrf(t)}}, "Sec-Fetch-Site", "cross-site").must(t, http.StatusForbidden)
			if rec.count() != 1 {
				t.Errorf("a refused form made a proposal: %d", rec.count())
			}
		})
	}
}

// TestUIHealthOtherSubjects: no grant, no page; another subject's
// personal repository is refused; a writer's button on a server without
// review says so and writes nothing.
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
	res := w.post("/ui/r/acme/api/~tidy", url.Values{"csrf": {pg.csrf(t)}}).must(t, http.StatusNotImplemented)
	if !strings.Contains(res.Body, "no review of proposals") {
		t.Errorf("the page does not say why:\n%s", res.Body)
	}
	if st, _ := ts.Store.RepoState(context.Background(), "acme/api"); st.Version != 1 {
		t.Errorf("tidy wrote: version %d", st.Version)
	}
}
