package storetest

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/teammem/teammem/server"
)

// reviewRig is a Service over a store under test, with the principals the
// review tests act as.
type reviewRig struct {
	t        *testing.T
	s        server.Store
	svc      *server.Service
	admin    server.Principal // reviews acme/*
	bob, eve server.Principal // write acme/api; eve also reads acme/secret
	outsider server.Principal // reads nothing of acme
}

func newReviewRig(t *testing.T, s server.Store) *reviewRig {
	grants := func(gs ...string) []server.Grant {
		var out []server.Grant
		for _, g := range gs {
			gr, err := server.ParseGrant(g)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, gr)
		}
		return out
	}
	return &reviewRig{t: t, s: s,
		svc:      server.NewService(s, server.Config{Review: reviewStore(t, s), Now: func() time.Time { return at(30) }}),
		admin:    server.Principal{Subject: "ada", Grants: grants("acme/*:admin"), Credential: "token:ada"},
		bob:      server.Principal{Subject: "bob", Grants: grants("acme/api:write"), Credential: "token:bob"},
		eve:      server.Principal{Subject: "eve", Grants: grants("acme/api:write", "acme/secret:read"), Credential: "token:eve"},
		outsider: server.Principal{Subject: "oscar", Grants: grants("other/*:admin")},
	}
}

func (r *reviewRig) put(p server.Principal, c contents, deletes ...string) server.WriteResult {
	r.t.Helper()
	res, err := r.svc.Put(context.Background(), p, "acme/api", server.PutInput{Entries: c, Deletes: deletes})
	if err != nil {
		r.t.Fatalf("Put by %s: %v", p.Subject, err)
	}
	return res
}

func (r *reviewRig) policy(pol server.ReviewPolicy) {
	r.t.Helper()
	if _, err := r.svc.SetReviewPolicy(context.Background(), r.admin, "acme/api", pol, server.Provenance{}); err != nil {
		r.t.Fatal(err)
	}
}

func (r *reviewRig) live() contents { return liveContents(r.t, r.s, "acme/api") }

func (r *reviewRig) decide(p server.Principal, id int64, d server.Decision, comment string) (server.Proposal, error) {
	return r.svc.Decide(context.Background(), p, id, d, comment, server.Provenance{Surface: server.SurfaceREST})
}

const idx = "# Index\n- [a](a.md) — A\n- [b](b.md) — B\n"

// testReviewChanges: under "changes" a writer's new key and added index
// lines land at once; an edit, a delete and a removed index line become
// one proposal, amended (never doubled) by the same push again; reads
// and search serve the reviewed state; an admin's edit lands.
func testReviewChanges(t *testing.T, s server.Store) {
	r := newReviewRig(t, s)
	r.put(r.admin, contents{"a.md": "a1\n", "gone.md": "g\n", "MEMORY.md": idx})
	r.policy(server.ReviewChanges)
	edit := contents{"a.md": "a2 zeppelin\n", "new.md": "n lighthouse\n", "MEMORY.md": "# Index\n- [a](a.md) — A\n- [n](new.md) — N\n"}
	res := r.put(r.bob, edit, "gone.md", "never.md")
	if res.Proposal == nil {
		t.Fatalf("Put under review = %+v; want a proposal", res)
	}
	prop := res.Proposal
	if got := prop.Keys(); !slices.Equal(got, []string{"MEMORY.md", "a.md", "gone.md"}) {
		t.Errorf("proposed keys %v; want MEMORY.md, a.md, gone.md", got)
	}
	want := contents{"a.md": "a1\n", "gone.md": "g\n", "new.md": "n lighthouse\n",
		"MEMORY.md": "# Index\n- [a](a.md) — A\n- [b](b.md) — B\n- [n](new.md) — N\n"}
	if got := r.live(); !maps.Equal(got, want) {
		t.Errorf("live after the push = %v; want %v", got, want)
	}
	for word, want := range map[string]int{"zeppelin": 0, "lighthouse": 1} {
		page, err := r.svc.Search(context.Background(), r.admin, server.SearchQuery{Text: word, Repo: "acme/api"})
		if err != nil || len(page.Results) != want {
			t.Errorf("search %q while the edit waits: %+v, %v; want %d results (only what landed)", word, page.Results, err, want)
		}
	}
	again := r.put(r.bob, edit, "gone.md")
	if again.Proposal == nil || again.Proposal.ID != prop.ID || len(again.Changed) != 0 {
		t.Errorf("the same push again = %+v; want proposal #%d again, nothing changed", again, prop.ID)
	}
	list, _, err := r.svc.Proposals(context.Background(), r.admin, server.ProposalsRequest{Repo: "acme/api", State: server.ProposalOpen})
	if err != nil || len(list) != 1 {
		t.Fatalf("open proposals = %d, %v; want 1", len(list), err)
	}
	r.put(r.admin, contents{"a.md": "a3\n"})
	if got := r.live()["a.md"]; got != "a3\n" {
		t.Errorf("an admin's edit left a.md %q; want it landed", got)
	}
	if _, err := r.decide(r.admin, prop.ID, server.DecideApprove, ""); err == nil {
		t.Errorf("approving an edit of a.md, which moved and conflicts, succeeded")
	}
}

// testReviewApprove: approving applies the proposal as one write whose
// provenance names its author and approver; a key that moved merges as the
// agent merges, or the approval is refused naming it and the proposal
// stays open; a replayed approval finds it decided; a rejection needs a
// comment; under "all" a new key waits too.
func testReviewApprove(t *testing.T, s server.Store) {
	r := newReviewRig(t, s)
	r.put(r.admin, contents{"a.md": "l1\nl2\nl3\nl4\nl5\n", "b.md": "b1\n", "MEMORY.md": idx})
	r.policy(server.ReviewChanges)
	prop := r.put(r.bob, contents{"a.md": "L1\nl2\nl3\nl4\nl5\n", "MEMORY.md": "# Index\n- [a](a.md) — A\n"}).Proposal
	r.put(r.admin, contents{"a.md": "l1\nl2\nl3\nl4\nL5\n", "MEMORY.md": idx + "- [c](c.md) — C\n"}) // the base moves, apart
	got, err := r.decide(r.admin, prop.ID, server.DecideApprove, "fine")
	if err != nil || got.State != server.ProposalApproved || got.DecidedBy != "ada" || got.AppliedVersion == 0 {
		t.Fatalf("approve = %+v, %v", got, err)
	}
	live := r.live()
	if live["a.md"] != "L1\nl2\nl3\nl4\nL5\n" || live["MEMORY.md"] != "# Index\n- [a](a.md) — A\n- [c](c.md) — C\n" {
		t.Errorf("after approval: a.md %q, MEMORY.md %q; want both sides merged", live["a.md"], live["MEMORY.md"])
	}
	rv, err := s.Revision(context.Background(), "acme/api", "a.md", got.AppliedVersion)
	if err != nil || rv.Author != "bob" || rv.Provenance.ApprovedBy != "ada" || rv.Provenance.Proposal != prop.ID {
		t.Errorf("the approved revision = %+v, %v; want author bob approved by ada for #%d", rv, err, prop.ID)
	}
	var se *server.ProposalStateError
	if _, err := r.decide(r.admin, prop.ID, server.DecideApprove, ""); !errors.As(err, &se) {
		t.Errorf("a replayed approval: %v; want ProposalStateError", err)
	}

	clash := r.put(r.bob, contents{"b.md": "bob\n"}).Proposal
	r.put(r.admin, contents{"b.md": "ada\n"})
	var mc *server.MergeConflictError
	if _, err := r.decide(r.admin, clash.ID, server.DecideApprove, ""); !errors.As(err, &mc) || !slices.Equal(mc.Keys, []string{"b.md"}) {
		t.Fatalf("approving over a clashing edit: %v; want MergeConflictError naming b.md", err)
	}
	if v, _ := r.svc.Proposal(context.Background(), r.admin, clash.ID); v.State != server.ProposalOpen || r.live()["b.md"] != "ada\n" {
		t.Errorf("after a refused approval: %s, b.md %q; want open and untouched", v.State, r.live()["b.md"])
	}
	if _, err := r.decide(r.admin, clash.ID, server.DecideReject, ""); !errors.Is(err, server.ErrInvalid) {
		t.Errorf("a rejection without a comment: %v; want ErrInvalid", err)
	}
	if got, err := r.decide(r.admin, clash.ID, server.DecideReject, "keep ada's"); err != nil || got.State != server.ProposalRejected || got.Comment != "keep ada's" {
		t.Errorf("reject = %+v, %v", got, err)
	}

	r.policy(server.ReviewAll)
	if res := r.put(r.bob, contents{"fresh.md": "f\n"}); res.Proposal == nil || r.live()["fresh.md"] != "" {
		t.Errorf("under all a new key: %+v; want it proposed, not landed", res)
	}
	if res := r.put(r.admin, contents{"fresh2.md": "f\n"}); res.Proposal != nil {
		t.Errorf("under all an admin's write was proposed: %+v", res.Proposal)
	}
	set := map[string]*string{"b.md": nil, "t.md": ptr("t\n")}
	for _, notes := range []map[string]string{{"x.md": "not in the set"}, {"b.md": "folded\x1b[2Jinto"}, {"b.md": strings.Repeat("n", server.MaxNoteBytes+1)}} {
		if _, err := r.svc.Propose(context.Background(), r.bob, "acme/api", server.ChangeSet{Changes: set, Notes: notes}); !errors.Is(err, server.ErrInvalid) {
			t.Errorf("Propose with notes %.40q = %v; want ErrInvalid", notes, err)
		}
	}
	tidy, err := r.svc.Propose(context.Background(), r.bob, "acme/api", server.ChangeSet{Changes: set, Notes: map[string]string{"b.md": "folded into a.md"}})
	if err != nil || len(tidy.Changes) != 2 || !tidy.Changes[0].Delete {
		t.Fatalf("Propose = %+v, %v; want a new proposal deleting b.md and adding t.md", tidy, err)
	}
	if v, err := r.svc.Proposal(context.Background(), r.admin, tidy.ID); err != nil || v.Changes[0].Note != "folded into a.md" || v.Changes[1].Note != "" {
		t.Errorf("the notes kept: %+v, %v", v.Changes, err)
	}
	// A push of the author's never folds into a change set proposed
	// whole: it goes to the author's proposal of pushes.
	if res := r.put(r.bob, contents{"later.md": "l\n"}); res.Proposal == nil || res.Proposal.ID == tidy.ID {
		t.Errorf("bob's push went to %+v; want a proposal other than the change set #%d", res.Proposal, tidy.ID)
	}
	if v, _ := r.svc.Proposal(context.Background(), r.admin, tidy.ID); !slices.Equal(v.Keys(), []string{"b.md", "t.md"}) ||
		v.Provenance.Surface != server.SurfaceAgent {
		t.Errorf("the change set after bob's push: %v by %+v", v.Keys(), v.Provenance)
	}
	if _, err := r.decide(r.admin, tidy.ID, server.DecideApprove, ""); err != nil {
		t.Fatal(err)
	}
	if live := r.live(); live["b.md"] != "" || live["t.md"] != "t\n" {
		t.Errorf("after approving the change set: %v", live)
	}
}

func ptr(s string) *string { return &s }

// testReviewHostile: a writer cannot approve or reject, nor withdraw
// another's proposal; a proposal of a repository the caller cannot read is
// not found, as an absent one; a propose-only token's writes always wait,
// even an admin's, and it decides nothing.
func testReviewHostile(t *testing.T, s server.Store) {
	r := newReviewRig(t, s)
	r.put(r.admin, contents{"a.md": "a\n"})
	r.policy(server.ReviewChanges)
	prop := r.put(r.bob, contents{"a.md": "b\n"}).Proposal
	for name, tt := range map[string]struct {
		p    server.Principal
		d    server.Decision
		want error
	}{
		"writer approves":       {r.bob, server.DecideApprove, server.ErrForbidden},
		"writer rejects":        {r.eve, server.DecideReject, server.ErrForbidden},
		"another withdraws":     {r.eve, server.DecideWithdraw, server.ErrForbidden},
		"admin withdraws":       {r.admin, server.DecideWithdraw, server.ErrForbidden},
		"outsider approves":     {r.outsider, server.DecideApprove, server.ErrNotFound},
		"propose-only approves": {server.Principal{Subject: "ada", Grants: r.admin.Grants, ProposeOnly: true}, server.DecideApprove, server.ErrForbidden},
	} {
		if _, err := r.decide(tt.p, prop.ID, tt.d, "x"); !errors.Is(err, tt.want) {
			t.Errorf("%s: %v; want %v", name, err, tt.want)
		}
	}
	if _, err := r.svc.Proposal(context.Background(), r.outsider, prop.ID); !errors.Is(err, server.ErrNotFound) {
		t.Errorf("an outsider reads a proposal: %v; want ErrNotFound", err)
	}
	if list, _, err := r.svc.Proposals(context.Background(), r.outsider, server.ProposalsRequest{}); err != nil || len(list) != 0 {
		t.Errorf("an outsider lists %d proposals, %v; want none", len(list), err)
	}
	if _, _, err := r.svc.Proposals(context.Background(), r.outsider, server.ProposalsRequest{Repo: "acme/api"}); !errors.Is(err, server.ErrForbidden) {
		t.Errorf("an outsider lists acme/api: %v; want ErrForbidden", err)
	}
	if _, err := r.svc.SetReviewPolicy(context.Background(), r.bob, "acme/api", server.ReviewOff, server.Provenance{}); !errors.Is(err, server.ErrForbidden) {
		t.Errorf("a writer sets the policy: %v; want ErrForbidden", err)
	}
	if got, err := r.decide(r.bob, prop.ID, server.DecideWithdraw, ""); err != nil || got.State != server.ProposalWithdrawn {
		t.Errorf("its author withdraws: %+v, %v", got, err)
	}
	bot := server.Principal{Subject: "ci", Grants: r.admin.Grants, ProposeOnly: true}
	if res := r.put(bot, contents{"ci.md": "c\n"}); res.Proposal == nil || r.live()["ci.md"] != "" {
		t.Errorf("a propose-only admin's new key landed: %+v", res)
	}
}
