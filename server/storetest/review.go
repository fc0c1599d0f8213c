package storetest

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/teammem/teammem/server"
)

// reviewStore returns s as a ReviewStore, which both stores are.
func reviewStore(t *testing.T, s server.Store) server.ReviewStore {
	t.Helper()
	rs, ok := s.(server.ReviewStore)
	if !ok {
		t.Fatalf("%T keeps no proposals", s)
	}
	return rs
}

func draft(repo, author string, base int64, amend bool, changes ...server.ProposedChange) server.ProposalDraft {
	return server.ProposalDraft{Repo: repo, BaseVersion: base, Changes: changes, Provenance: provOf(author), At: at(10), Amend: amend}
}

func change(key, content, base string) server.ProposedChange {
	return server.ProposedChange{Key: key, Content: content, Checksum: put(key, content).Checksum, Base: base}
}

func saveDraft(t *testing.T, rs server.ReviewStore, d server.ProposalDraft) (server.Proposal, bool) {
	t.Helper()
	p, changed, err := rs.SaveProposal(context.Background(), d)
	if err != nil {
		t.Fatalf("SaveProposal(%+v): %v", d, err)
	}
	return p, changed
}

// testReviewPolicy: a repository's policy is off until set, then what was
// set, per repository.
func testReviewPolicy(t *testing.T, s server.Store) {
	rs, ctx := reviewStore(t, s), context.Background()
	if p, err := rs.ReviewPolicy(ctx, "acme/api"); err != nil || p != server.ReviewOff {
		t.Fatalf("policy of a new repository = %q, %v; want off", p, err)
	}
	for _, p := range []server.ReviewPolicy{server.ReviewChanges, server.ReviewAll} {
		if err := rs.SetReviewPolicy(ctx, "acme/api", p, at(1)); err != nil {
			t.Fatal(err)
		}
		if got, err := rs.ReviewPolicy(ctx, "acme/api"); err != nil || got != p {
			t.Fatalf("policy = %q, %v; want %q", got, err, p)
		}
	}
	if p, _ := rs.ReviewPolicy(ctx, "acme/web"); p != server.ReviewOff {
		t.Errorf("another repository's policy = %q; want off", p)
	}
}

// testProposals: a draft makes an open proposal with its changes and
// bases; an amending draft of the same author folds into it (and changes
// nothing when it holds nothing new), another author's or a non-amending
// draft makes another; listings filter and page newest first.
func testProposals(t *testing.T, s server.Store) {
	rs, ctx := reviewStore(t, s), context.Background()
	added := server.ProposedChange{Key: "new.md", Content: "n", Checksum: put("new.md", "n").Checksum, BaseAbsent: true}
	gone := server.ProposedChange{Key: "old.md", Delete: true, Checksum: put("old.md", "o").Checksum, Base: "o"}
	p1, changed := saveDraft(t, rs, draft("acme/api", "bob", 3, true, change("a.md", "A2", "A1"), added, gone))
	if !changed || p1.ID == 0 || p1.State != server.ProposalOpen || p1.Author != "bob" || p1.BaseVersion != 3 || len(p1.Changes) != 3 {
		t.Fatalf("new proposal = %+v, changed %v", p1, changed)
	}
	if c := p1.Changes[1]; c.Key != "new.md" || !c.BaseAbsent || c.Content != "n" {
		t.Errorf("added key's change = %+v", c)
	}
	if c := p1.Changes[2]; c.Key != "old.md" || !c.Delete || c.Base != "o" || c.BaseAbsent {
		t.Errorf("delete's change = %+v", c)
	}
	if p1.Provenance.Subject != "bob" || p1.Provenance.Surface != server.SurfaceAgent {
		t.Errorf("provenance = %+v", p1.Provenance)
	}
	again, changed := saveDraft(t, rs, draft("acme/api", "bob", 4, true, change("a.md", "A2", "A1")))
	if changed || again.ID != p1.ID {
		t.Fatalf("the same push again = #%d changed %v; want #%d unchanged", again.ID, changed, p1.ID)
	}
	amended, changed := saveDraft(t, rs, draft("acme/api", "bob", 5, true, change("a.md", "A3", "A2-ignored"), change("b.md", "B2", "B1")))
	if !changed || amended.ID != p1.ID || len(amended.Changes) != 4 || amended.BaseVersion != 5 {
		t.Fatalf("amended = %+v, changed %v", amended, changed)
	}
	if c := amended.Changes[0]; c.Content != "A3" || c.Base != "A1" {
		t.Errorf("amended a.md = %+v; want A3 over its first base A1", c)
	}
	other, _ := saveDraft(t, rs, draft("acme/api", "carol", 5, true, change("a.md", "C", "A1")))
	apart, _ := saveDraft(t, rs, draft("acme/api", "bob", 5, false, change("c.md", "C2", "C1")))
	web, _ := saveDraft(t, rs, draft("acme/web", "bob", 1, true, change("w.md", "W2", "W1")))
	if other.ID == p1.ID || apart.ID == p1.ID || web.ID == p1.ID || other.ID == apart.ID {
		t.Fatalf("ids %d %d %d %d: another author, a non-amending draft and another repository each make their own", p1.ID, other.ID, apart.ID, web.ID)
	}
	list := func(q server.ProposalQuery) []int64 {
		t.Helper()
		if q.Limit == 0 {
			q.Limit = 10
		}
		ps, err := rs.Proposals(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		ids := []int64{}
		for _, p := range ps {
			ids = append(ids, p.ID)
			if len(p.Changes) == 0 || p.Changes[0].Content != "" {
				t.Errorf("listed #%d with changes %+v; want keys without content", p.ID, p.Changes)
			}
		}
		return ids
	}
	for name, tt := range map[string]struct {
		q    server.ProposalQuery
		want []int64
	}{
		"all":          {server.ProposalQuery{}, []int64{web.ID, apart.ID, other.ID, p1.ID}},
		"repo":         {server.ProposalQuery{Repo: "acme/web"}, []int64{web.ID}},
		"author":       {server.ProposalQuery{Repo: "acme/api", Author: "carol"}, []int64{other.ID}},
		"page":         {server.ProposalQuery{Limit: 2, Before: apart.ID}, []int64{other.ID, p1.ID}},
		"prefix":       {server.ProposalQuery{Prefixes: []string{"acme/w", "other/"}}, []int64{web.ID}},
		"empty prefix": {server.ProposalQuery{Prefixes: []string{"", "zzz/"}}, []int64{web.ID, apart.ID, other.ID, p1.ID}},
		"no prefix":    {server.ProposalQuery{Prefixes: []string{"zzz/"}}, []int64{}},
		"state":        {server.ProposalQuery{State: server.ProposalRejected}, []int64{}},
	} {
		if got := list(tt.q); !slices.Equal(got, tt.want) {
			t.Errorf("%s: %v; want %v", name, got, tt.want)
		}
	}
	if counts, err := rs.OpenProposals(ctx); err != nil || counts["acme/api"] != 3 || counts["acme/web"] != 1 || len(counts) != 2 {
		t.Errorf("OpenProposals = %v, %v; want acme/api 3, acme/web 1", counts, err)
	}
	if _, err := rs.Proposal(ctx, web.ID+100); !errors.Is(err, server.ErrNotFound) {
		t.Errorf("an absent proposal: %v; want ErrNotFound", err)
	}
}

// testDecideProposal: a decision moves an open proposal once; a second
// one (a replay, another reviewer) finds it decided; a decided proposal is
// never amended: the author's next push makes a new one.
func testDecideProposal(t *testing.T, s server.Store) {
	rs, ctx := reviewStore(t, s), context.Background()
	p, _ := saveDraft(t, rs, draft("acme/api", "bob", 1, true, change("a.md", "A2", "A1")))
	dec := server.ProposalDecision{ID: p.ID, From: server.ProposalOpen, To: server.ProposalRejected, By: "admin", At: at(20), Comment: "no"}
	got, err := rs.DecideProposal(ctx, dec)
	if err != nil || got.State != server.ProposalRejected || got.DecidedBy != "admin" || got.Comment != "no" || !got.DecidedAt.Equal(at(20)) {
		t.Fatalf("DecideProposal = %+v, %v", got, err)
	}
	var se *server.ProposalStateError
	if _, err := rs.DecideProposal(ctx, dec); !errors.As(err, &se) || se.State != server.ProposalRejected || !errors.Is(err, server.ErrConflict) {
		t.Errorf("deciding again: %v; want a ProposalStateError (rejected)", err)
	}
	if _, err := rs.DecideProposal(ctx, server.ProposalDecision{ID: p.ID + 50, From: server.ProposalOpen, To: server.ProposalApproved}); !errors.Is(err, server.ErrNotFound) {
		t.Errorf("deciding an absent proposal: %v; want ErrNotFound", err)
	}
	next, changed := saveDraft(t, rs, draft("acme/api", "bob", 1, true, change("a.md", "A2", "A1")))
	if !changed || next.ID == p.ID {
		t.Errorf("after a rejection the same push makes #%d (changed %v); want a new proposal", next.ID, changed)
	}
}
