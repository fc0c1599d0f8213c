package webui_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/server/postgres"
	"github.com/teammem/teammem/testkit/pgtest"
	"github.com/teammem/teammem/testkit/servertest"
)

func reviewUI(t *testing.T, fn func(t *testing.T, ts *testServer)) {
	t.Run("sqlite", func(t *testing.T) { fn(t, newTestServer(t, servertest.Options{})) })
	t.Run("postgres", func(t *testing.T) {
		db, err := postgres.Open(context.Background(), pgtest.URL(t), postgres.Options{Migrate: true})
		if err != nil {
			t.Fatal(err)
		}
		fn(t, newTestServer(t, servertest.Options{Store: db}))
	})
}

// propose sets acme/api's policy to changes and has bob propose an edit;
// it returns bob's token.
func propose(t *testing.T, ts *testServer) string {
	t.Helper()
	ts.Put("acme/api", map[string]string{"db.md": "Use MySQL.\nKeep it.\n"}, nil, http.StatusOK)
	if r := ts.Do(http.MethodPut, api.PathPolicy+"?repo=acme/api", ts.Admin, []byte(`{"review":"changes"}`)); r.Status != http.StatusOK {
		t.Fatalf("set policy: %d %s", r.Status, r.Body)
	}
	bob := ts.Token("bob", "acme/api:write")
	r := ts.Do(http.MethodPut, api.PathTeamMemory+"?repo=acme/api", bob, []byte(`{"entries":{"db.md":"Use Postgres.\nKeep it.\n"}}`),
		"User-Agent", "teammem-agent/1.4.0", api.HeaderMachine, "bob-laptop")
	if r.Header.Get(api.HeaderProposal) != "1" {
		t.Fatalf("no proposal: %d %s", r.Status, r.Body)
	}
	return bob
}

// TestReviewQueueAndApprove: an admin sees the count in the header, the
// queue, the proposal's diff and its author's provenance, and approves it
// with a comment through the page's form; the writer sees the queue but
// no approve button, and a form posted without the CSRF token, or from
// another site, or twice, decides nothing more.
func TestReviewQueueAndApprove(t *testing.T) {
	reviewUI(t, func(t *testing.T, ts *testServer) {
		bob := propose(t, ts)
		writer := ts.browser(t)
		writer.signIn(bob)
		wp := writer.get("/ui/proposals/1").must(t, http.StatusOK)
		if strings.Contains(wp.Body, `value="approve"`) || !strings.Contains(wp.Body, `value="withdraw"`) {
			t.Errorf("the author's page offers approve, or no withdraw")
		}
		if p := writer.post("/ui/proposals/1", url.Values{"csrf": {wp.csrf(t)}, "decision": {"approve"}}); p.Status != http.StatusForbidden {
			t.Errorf("the writer approves through the form: %d", p.Status)
		}
		admin := ts.browser(t)
		admin.signIn(ts.Admin)
		home := admin.get("/ui/").must(t, http.StatusOK)
		if !strings.Contains(home.Body, `<span class="count">1</span>`) {
			t.Errorf("the header shows no count of open proposals")
		}
		q := admin.get("/ui/proposals?repo=acme/api").must(t, http.StatusOK)
		if !strings.Contains(q.Body, `href="/ui/proposals/1"`) || !strings.Contains(q.Body, "<code>db.md</code>") {
			t.Errorf("the queue lists no #1 of db.md:\n%s", q.Body)
		}
		pp := admin.get("/ui/proposals/1").must(t, http.StatusOK)
		for _, want := range []string{"Use Postgres.", "Use MySQL.", "bob", "teammem-agent/1.4.0", "on bob-laptop", `value="approve"`, `value="reject"`} {
			if !strings.Contains(pp.Body, want) {
				t.Errorf("the proposal page lacks %q", want)
			}
		}
		if p := admin.post("/ui/proposals/1", url.Values{"decision": {"approve"}}); p.Status != http.StatusBadRequest {
			t.Errorf("a form without the CSRF token: %d", p.Status)
		}
		if p := admin.post("/ui/proposals/1", url.Values{"csrf": {pp.csrf(t)}, "decision": {"approve"}}, "Sec-Fetch-Site", "cross-site"); p.Status != http.StatusForbidden {
			t.Errorf("a cross-site form: %d", p.Status)
		}
		form := url.Values{"csrf": {pp.csrf(t)}, "decision": {"approve"}, "comment": {"thanks"}}
		if p := admin.post("/ui/proposals/1", form); p.Status != http.StatusSeeOther || p.Header.Get("Location") != "/ui/proposals/1" {
			t.Fatalf("approve through the form: %d %s", p.Status, p.Body)
		}
		if p := admin.post("/ui/proposals/1", form); p.Status != http.StatusConflict {
			t.Errorf("the same form again: %d", p.Status)
		}
		done := admin.get("/ui/proposals/1").must(t, http.StatusOK)
		if !strings.Contains(done.Body, "approved by admin") || !strings.Contains(done.Body, "thanks") || strings.Contains(done.Body, `value="approve"`) {
			t.Errorf("the decided page:\n%s", done.Body)
		}
		pull := servertest.Decode[api.TeamMemory](t, ts.Get("repo=acme/api", http.StatusOK))
		if pull.Content.Entries["db.md"] != "Use Postgres.\nKeep it.\n" {
			t.Errorf("served after approval: %q", pull.Content.Entries["db.md"])
		}
	})
}

// TestReviewPagesHostile: a proposal of a repository the caller cannot
// read is not found, as an absent one, and the queue lists none of them.
func TestReviewPagesHostile(t *testing.T) {
	ts := newTestServer(t, servertest.Options{})
	propose(t, ts)
	outsider := ts.browser(t)
	outsider.signIn(ts.Token("oscar", "other/*:admin"))
	if p := outsider.get("/ui/proposals/1"); p.Status != http.StatusNotFound {
		t.Errorf("an outsider opens #1: %d", p.Status)
	}
	if p := outsider.get("/ui/proposals/2"); p.Status != http.StatusNotFound {
		t.Errorf("an absent proposal: %d", p.Status)
	}
	if q := outsider.get("/ui/proposals").must(t, http.StatusOK); strings.Contains(q.Body, "/ui/proposals/1") {
		t.Errorf("the outsider's queue lists #1")
	}
}

// TestReviewPolicyForm: an admin sets the policy from the repository's
// queue; a writer sees it but gets no form, and its forged post is
// refused; a post without the CSRF token changes nothing.
func TestReviewPolicyForm(t *testing.T) {
	ts := newTestServer(t, servertest.Options{})
	ts.Put("acme/api", map[string]string{"a.md": "a\n"}, nil, http.StatusOK)
	admin := ts.browser(t)
	admin.signIn(ts.Admin)
	q := admin.get("/ui/proposals?repo=acme/api").must(t, http.StatusOK)
	if !strings.Contains(q.Body, `<option value="off" selected>`) {
		t.Fatalf("the queue shows no policy form set to off:\n%s", q.Body)
	}
	if p := admin.post("/ui/r/acme/api/~policy", url.Values{"review": {"all"}}); p.Status != http.StatusBadRequest {
		t.Errorf("a policy form without CSRF: %d", p.Status)
	}
	if p := admin.post("/ui/r/acme/api/~policy", url.Values{"csrf": {q.csrf(t)}, "review": {"changes"}}); p.Status != http.StatusSeeOther {
		t.Fatalf("set policy: %d %s", p.Status, p.Body)
	}
	pol := servertest.Decode[api.Policy](t, ts.Do(http.MethodGet, api.PathPolicy+"?repo=acme/api", ts.Admin, nil))
	if pol.Review != "changes" {
		t.Errorf("policy after the form: %q", pol.Review)
	}
	writer := ts.browser(t)
	writer.signIn(ts.Token("bob", "acme/api:write"))
	wq := writer.get("/ui/proposals?repo=acme/api").must(t, http.StatusOK)
	if strings.Contains(wq.Body, "~policy") || !strings.Contains(wq.Body, "Review: changes") {
		t.Errorf("the writer's queue shows a policy form, or not the policy")
	}
	if p := writer.post("/ui/r/acme/api/~policy", url.Values{"csrf": {wq.csrf(t)}, "review": {"off"}}); p.Status != http.StatusForbidden {
		t.Errorf("a writer's policy post: %d", p.Status)
	}
}

// TestOwnProposalsMarked: the author sees their open proposal marked on
// the repository's page (its number and keys) and on the page of each
// entry it would change or delete; another writer and a reviewer see no
// such mark on the same pages; once decided, the marks go.
func TestOwnProposalsMarked(t *testing.T) {
	reviewUI(t, func(t *testing.T, ts *testServer) {
		ts.Put("acme/api", map[string]string{"old.md": "Old.\n", "kept.md": "Kept.\n"}, nil, http.StatusOK)
		bob := propose(t, ts)
		if r := ts.Do(http.MethodPut, api.PathTeamMemory+"?repo=acme/api", bob, []byte(`{"entries":{},"soft_delete_keys":["old.md"]}`)); r.Header.Get(api.HeaderProposal) != "1" {
			t.Fatalf("bob's delete did not amend #1: %d %s", r.Status, r.Body)
		}
		const edit, del = "Your proposal <a href=\"/ui/proposals/1\">#1</a> to change this entry", "Your proposal <a href=\"/ui/proposals/1\">#1</a> to delete this entry"
		pages := map[string]string{"/ui/r/acme/api/~entry?key=db.md": edit, "/ui/r/acme/api/~entry?key=old.md": del,
			"/ui/r/acme/api": `<a href="/ui/proposals/1">#1</a>: <code>db.md</code>, <code>old.md</code>`}
		author, other, admin := ts.browser(t), ts.browser(t), ts.browser(t)
		author.signIn(bob)
		other.signIn(ts.Token("eve", "acme/api:write"))
		admin.signIn(ts.Admin)
		for path, mark := range pages {
			if p := author.get(path).must(t, http.StatusOK); !strings.Contains(p.Body, mark) {
				t.Errorf("bob's %s lacks %q:\n%s", path, mark, p.Body)
			}
			for who, b := range map[string]*browser{"eve": other, "the admin": admin} {
				if p := b.get(path).must(t, http.StatusOK); strings.Contains(p.Body, "Your proposal") {
					t.Errorf("%s's %s marks bob's proposal as theirs", who, path)
				}
			}
		}
		if p := author.get("/ui/r/acme/api/~entry?key=kept.md").must(t, http.StatusOK); strings.Contains(p.Body, "Your proposal") {
			t.Errorf("an entry no proposal holds is marked")
		}
		ts.Do(http.MethodPost, api.PathProposals+"/1/reject", ts.Admin, []byte(`{"comment":"not now"}`))
		for path := range pages {
			if p := author.get(path).must(t, http.StatusOK); strings.Contains(p.Body, "Your proposal") {
				t.Errorf("bob's %s still marks the rejected proposal", path)
			}
		}
	})
}
