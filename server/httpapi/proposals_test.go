package httpapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/postgres"
	"github.com/teammem/teammem/testkit/pgtest"
	"github.com/teammem/teammem/testkit/servertest"
)

// reviewStores runs fn against a server on each store.
func reviewStores(t *testing.T, fn func(t *testing.T, ts *testServer)) {
	t.Run("sqlite", func(t *testing.T) { fn(t, newTestServer(t, servertest.Options{})) })
	t.Run("postgres", func(t *testing.T) {
		db, err := postgres.Open(context.Background(), pgtest.URL(t), postgres.Options{Migrate: true})
		if err != nil {
			t.Fatal(err)
		}
		fn(t, newTestServer(t, servertest.Options{Store: db}))
	})
}

func (ts *testServer) setPolicy(token, repo, review string, want int) servertest.Response {
	ts.t.Helper()
	r := ts.Do(http.MethodPut, api.PathPolicy+"?repo="+repo, token, []byte(`{"review":"`+review+`"}`))
	if r.Status != want {
		ts.t.Fatalf("PUT policy %s as someone: %d, want %d: %s", review, r.Status, want, r.Body)
	}
	return r
}

func (ts *testServer) putAs(token, repo string, entries map[string]string, deletes ...string) (api.PutResponse, http.Header) {
	ts.t.Helper()
	body, _ := json.Marshal(api.PutRequest{Entries: entries, SoftDeleteKeys: deletes})
	r := ts.Do(http.MethodPut, api.PathTeamMemory+"?repo="+repo, token, body)
	if r.Status != http.StatusOK {
		ts.t.Fatalf("PUT under review: %d: %s", r.Status, r.Body)
	}
	return servertest.Decode[api.PutResponse](ts.t, r), r.Header
}

func (ts *testServer) decide(token string, id int64, d, comment string, want int) servertest.Response {
	ts.t.Helper()
	body, _ := json.Marshal(api.DecisionRequest{Comment: comment})
	r := ts.Do(http.MethodPost, api.PathProposals+"/"+strconv.FormatInt(id, 10)+"/"+d, token, body)
	if r.Status != want {
		ts.t.Fatalf("%s #%d: %d, want %d: %s", d, id, r.Status, want, r.Body)
	}
	return r
}

// TestReviewOverHTTP: a writer's push under "changes" answers 200 with the
// proposal (header and member) while reads serve the reviewed state; the
// same push again names the same proposal; an admin approves it once, as
// one write naming author and approver; a replay answers 409.
func TestReviewOverHTTP(t *testing.T) {
	reviewStores(t, func(t *testing.T, ts *testServer) {
		bob := ts.Token("bob", "acme/api:write")
		ts.Put("acme/api", map[string]string{"a.md": "one\n"}, nil, http.StatusOK)
		ts.setPolicy(bob, "acme/api", "changes", http.StatusForbidden)
		ts.setPolicy(ts.Admin, "acme/api", "sometimes", http.StatusBadRequest)
		ts.setPolicy(ts.Admin, "acme/api", "changes", http.StatusOK)
		pol := servertest.Decode[api.Policy](t, ts.Do(http.MethodGet, api.PathPolicy+"?repo=acme/api", bob, nil))
		if pol.Review != "changes" || pol.Repo != "acme/api" {
			t.Errorf("policy read back = %+v", pol)
		}
		res, h := ts.putAs(bob, "acme/api", map[string]string{"a.md": "two\n", "b.md": "new\n"})
		if res.Proposal == nil || h.Get(api.HeaderProposal) != strconv.FormatInt(res.Proposal.ID, 10) ||
			strings.Join(res.Proposal.Keys, ",") != "a.md" || strings.Join(res.Changed, ",") != "b.md" {
			t.Fatalf("PUT under review = %+v, header %q", res, h.Get(api.HeaderProposal))
		}
		pull := servertest.Decode[api.TeamMemory](t, ts.Get("repo=acme/api", http.StatusOK))
		if pull.Content.Entries["a.md"] != "one\n" || pull.Checksum != res.Checksum {
			t.Errorf("pull after the proposal: a.md %q checksum %s; want the reviewed one\\n and the PUT's checksum %s", pull.Content.Entries["a.md"], pull.Checksum, res.Checksum)
		}
		again, _ := ts.putAs(bob, "acme/api", map[string]string{"a.md": "two\n", "b.md": "new\n"})
		if again.Proposal == nil || again.Proposal.ID != res.Proposal.ID {
			t.Errorf("the same push again: %+v; want proposal #%d", again.Proposal, res.Proposal.ID)
		}
		list := servertest.Decode[api.Proposals](t, ts.Do(http.MethodGet, api.PathProposals+"?repo=acme/api&state=open", bob, nil))
		if len(list.Proposals) != 1 || list.Next != nil {
			t.Fatalf("open proposals: %+v; want one", list)
		}
		detail := servertest.Decode[api.ProposalDetail](t, ts.Do(http.MethodGet, api.PathProposals+"/"+strconv.FormatInt(res.Proposal.ID, 10), bob, nil))
		if len(detail.Changes) != 1 || *detail.Changes[0].Current != "one\n" || !strings.Contains(detail.Changes[0].Diff, "+two") ||
			detail.CanReview || !detail.CanWithdraw || detail.Provenance.Subject != "bob" {
			t.Errorf("detail = %+v", detail)
		}
		ts.decide(bob, res.Proposal.ID, "approve", "", http.StatusForbidden)
		ok := servertest.Decode[api.Proposal](t, ts.decide(ts.Admin, res.Proposal.ID, "approve", "good", http.StatusOK))
		if ok.State != "approved" || ok.DecidedBy != "admin" || ok.AppliedVersion == 0 {
			t.Errorf("approved = %+v", ok)
		}
		e := ts.decide(ts.Admin, res.Proposal.ID, "approve", "", http.StatusConflict).ErrorBody(t)
		if e.Code() != api.CodeProposalDecided {
			t.Errorf("replayed approval: %+v", e)
		}
		hist := servertest.Decode[api.History](t, ts.Do(http.MethodGet, api.PathHistory+"?repo=acme/api&key=a.md", bob, nil))
		if p := hist.Revisions[0].Provenance; hist.Revisions[0].Author != "bob" || p.ApprovedBy != "admin" || p.Proposal != res.Proposal.ID {
			t.Errorf("the approved revision: %+v %+v", hist.Revisions[0], p)
		}
	})
}

// TestReviewHostile: ids of repositories the caller cannot read are not
// found; another subject cannot withdraw; a form POST (what a page of
// another site can send) and a cross-site fetch are refused; a merge that
// does not hold answers 409 naming the key and leaves the proposal open.
func TestReviewHostile(t *testing.T) {
	reviewStores(t, func(t *testing.T, ts *testServer) {
		bob, eve := ts.Token("bob", "acme/api:write"), ts.Token("eve", "acme/api:write")
		outsider := ts.Token("oscar", "other/*:admin")
		ts.Put("acme/api", map[string]string{"a.md": "one\n"}, nil, http.StatusOK)
		ts.setPolicy(ts.Admin, "acme/api", "changes", http.StatusOK)
		res, _ := ts.putAs(bob, "acme/api", map[string]string{"a.md": "bob\n"})
		id := strconv.FormatInt(res.Proposal.ID, 10)
		if r := ts.Do(http.MethodGet, api.PathProposals+"/"+id, outsider, nil); r.Status != http.StatusNotFound {
			t.Errorf("an outsider reads #%s: %d", id, r.Status)
		}
		ts.decide(outsider, res.Proposal.ID, "approve", "", http.StatusNotFound)
		ts.decide(outsider, res.Proposal.ID, "withdraw", "", http.StatusNotFound)
		ts.decide(eve, res.Proposal.ID, "withdraw", "", http.StatusForbidden)
		ts.decide(eve, res.Proposal.ID, "reject", "no", http.StatusForbidden)
		ts.decide(ts.Admin, res.Proposal.ID, "reject", "", http.StatusBadRequest)
		if r := ts.Do(http.MethodGet, api.PathProposals+"/99999", ts.Admin, nil); r.Status != http.StatusNotFound {
			t.Errorf("an absent proposal: %d", r.Status)
		}
		if r := ts.Do(http.MethodGet, api.PathProposals+"/x1", ts.Admin, nil); r.Status != http.StatusNotFound {
			t.Errorf("a malformed id: %d", r.Status)
		}
		list := servertest.Decode[api.Proposals](t, ts.Do(http.MethodGet, api.PathProposals, outsider, nil))
		if len(list.Proposals) != 0 {
			t.Errorf("an outsider lists %d proposals", len(list.Proposals))
		}
		if r := ts.Do(http.MethodGet, api.PathProposals+"?repo=acme/api", outsider, nil); r.Status != http.StatusForbidden {
			t.Errorf("an outsider lists acme/api: %d", r.Status)
		}
		form := ts.Send(false, http.MethodPost, api.PathProposals+"/"+id+"/approve", ts.Admin, nil, "Content-Type", "application/x-www-form-urlencoded")
		cross := ts.Send(false, http.MethodPost, api.PathProposals+"/"+id+"/approve", ts.Admin, []byte(`{}`), "Sec-Fetch-Site", "cross-site")
		if form.Status < 400 || cross.Status != http.StatusForbidden {
			t.Errorf("a form POST: %d, a cross-site POST: %d; want both refused", form.Status, cross.Status)
		}
		ts.Put("acme/api", map[string]string{"a.md": "admin\n"}, nil, http.StatusOK)
		e := ts.decide(ts.Admin, res.Proposal.ID, "approve", "", http.StatusConflict).ErrorBody(t)
		if e.Code() != api.CodeMergeConflict || !strings.Contains(e.Message, "a.md") {
			t.Errorf("approval over a clash: %+v", e)
		}
		open := servertest.Decode[api.Proposals](t, ts.Do(http.MethodGet, api.PathProposals+"?state=open", bob, nil))
		if len(open.Proposals) != 1 {
			t.Errorf("after a refused approval %d open proposals; want 1", len(open.Proposals))
		}
		ts.decide(bob, res.Proposal.ID, "withdraw", "", http.StatusOK)
	})
}

// TestReviewAcrossReplicas: a proposal made through one replica is
// approved through the other, and the first serves the approved text.
func TestReviewAcrossReplicas(t *testing.T) {
	dbURL := pgtest.URL(t)
	open := func() server.Store {
		db, err := postgres.Open(context.Background(), dbURL, postgres.Options{Migrate: true})
		if err != nil {
			t.Fatal(err)
		}
		return db
	}
	a := newTestServer(t, servertest.Options{Store: open()})
	b := &testServer{Server: a.Replica(t, servertest.Options{Store: open()}), t: t}
	bob := a.Token("bob", "acme/api:write")
	a.Put("acme/api", map[string]string{"a.md": "one\n"}, nil, http.StatusOK)
	b.setPolicy(b.Admin, "acme/api", "changes", http.StatusOK)
	res, _ := a.putAs(bob, "acme/api", map[string]string{"a.md": "two\n"})
	if res.Proposal == nil {
		t.Fatal("the policy set on one replica did not hold on the other")
	}
	b.decide(b.Admin, res.Proposal.ID, "approve", "", http.StatusOK)
	a.decide(a.Admin, res.Proposal.ID, "approve", "", http.StatusConflict)
	pull := servertest.Decode[api.TeamMemory](t, a.Get("repo=acme/api", http.StatusOK))
	if pull.Content.Entries["a.md"] != "two\n" {
		t.Errorf("the other replica serves a.md %q; want the approved text", pull.Content.Entries["a.md"])
	}
}
