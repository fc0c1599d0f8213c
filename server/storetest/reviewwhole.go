package storetest

import (
	"context"
	"sync"
	"testing"

	"github.com/teammem/teammem/server"
)

// testReviewWhole: a change set proposed whole is one proposal however
// often, and however concurrently, it is proposed again while it is open
// over the same version; another version, another change or its decision
// makes the next one new.
func testReviewWhole(t *testing.T, s server.Store) {
	r := newReviewRig(t, s)
	r.put(r.admin, contents{"a.md": "a\n", "b.md": "b\n"})
	ctx := context.Background()
	set := func(base int64, text string) server.ChangeSet {
		return server.ChangeSet{Changes: map[string]*string{"a.md": nil, "b.md": &text}, BaseVersion: base}
	}
	ids := make([]int64, 8)
	var wg sync.WaitGroup
	for i := range ids {
		wg.Go(func() {
			who := r.bob
			if i%2 == 1 {
				who = r.eve
			}
			if prop, err := r.svc.Propose(ctx, who, "acme/api", set(1, "b2\n")); err == nil {
				ids[i] = prop.ID
			} else {
				t.Errorf("Propose: %v", err)
			}
		})
	}
	wg.Wait()
	for _, id := range ids[1:] {
		if id != ids[0] {
			t.Fatalf("the same change set proposed 8 times at once made proposals %v; want one", ids)
		}
	}
	other, err := r.svc.Propose(ctx, r.bob, "acme/api", set(1, "b3\n"))
	if err != nil || other.ID == ids[0] {
		t.Errorf("another change: %+v, %v; want a new proposal", other, err)
	}
	r.put(r.admin, contents{"c.md": "c\n"})
	moved, err := r.svc.Propose(ctx, r.bob, "acme/api", set(2, "b2\n"))
	if err != nil || moved.ID == ids[0] {
		t.Errorf("the change set over the next version: %+v, %v; want a new proposal", moved, err)
	}
	if _, err := r.decide(r.admin, moved.ID, server.DecideReject, "no"); err != nil {
		t.Fatal(err)
	}
	after, err := r.svc.Propose(ctx, r.bob, "acme/api", set(2, "b2\n"))
	if err != nil || after.ID == moved.ID || after.State != server.ProposalOpen {
		t.Errorf("after its rejection: %+v, %v; want a new open proposal", after, err)
	}
}
