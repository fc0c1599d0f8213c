package storetest

import (
	"context"
	"errors"
	"maps"
	"testing"

	"github.com/teammem/teammem/server"
)

// testWritePolicy: a write cut by a review policy (Write.Policy) applies
// only while the repository's policy is that one: after a policy set it
// is refused with the policy found and nothing is written, whether or not
// this process wrote the repository last (Postgres guards that case
// without reading) and whether or not it changes anything; a write that
// depends on no policy applies whatever it is. A policy set on a
// repository never written does not make it appear.
func testWritePolicy(t *testing.T, s server.Store) {
	rs, ctx := reviewStore(t, s), context.Background()
	cut := func(w server.Write, p server.ReviewPolicy) server.Write { w.Policy = p; return w }
	refused := func(w server.Write, want server.ReviewPolicy) {
		t.Helper()
		before, _ := s.RepoState(ctx, w.Repo)
		res, err := s.Apply(ctx, w)
		var pc *server.PolicyChangedError
		if !errors.As(err, &pc) || pc.Policy != want || pc.Repo != w.Repo {
			t.Fatalf("Apply cut by %q under %q = %+v, %v; want a PolicyChangedError naming %q", w.Policy, want, res, err, want)
		}
		if after, _ := s.RepoState(ctx, w.Repo); after.Version != before.Version {
			t.Errorf("a refused write moved %s from version %d to %d", w.Repo, before.Version, after.Version)
		}
	}
	apply(t, s, cut(write("acme/api", at(1), contents{"a.md": "one\n"}), server.ReviewOff))
	apply(t, s, cut(write("acme/api", at(2), contents{"a.md": "two\n"}), server.ReviewOff)) // the last state is this process's
	if err := rs.SetReviewPolicy(ctx, "acme/api", server.ReviewAll, at(3)); err != nil {
		t.Fatal(err)
	}
	refused(cut(write("acme/api", at(4), contents{"a.md": "three\n"}), server.ReviewOff), server.ReviewAll)
	refused(cut(write("acme/api", at(4), nil), server.ReviewOff), server.ReviewAll) // nothing to write, checked still
	refused(cut(write("acme/api", at(4), contents{"a.md": "three\n"}), server.ReviewChanges), server.ReviewAll)
	apply(t, s, cut(write("acme/api", at(5), nil), server.ReviewAll))
	apply(t, s, write("acme/api", at(6), contents{"b.md": "admin\n"})) // depends on no policy
	if err := rs.SetReviewPolicy(ctx, "acme/api", server.ReviewOff, at(7)); err != nil {
		t.Fatal(err)
	}
	refused(cut(write("acme/api", at(8), contents{"a.md": "three\n"}), server.ReviewAll), server.ReviewOff)
	apply(t, s, cut(write("acme/api", at(9), contents{"a.md": "three\n"}), server.ReviewOff))
	if got, want := liveContents(t, s, "acme/api"), (contents{"a.md": "three\n", "b.md": "admin\n"}); !maps.Equal(got, want) {
		t.Errorf("live = %v; want %v", got, want)
	}

	if err := rs.SetReviewPolicy(ctx, "acme/new", server.ReviewChanges, at(10)); err != nil {
		t.Fatal(err)
	}
	if st, err := s.RepoState(ctx, "acme/new"); !errors.Is(err, server.ErrNotFound) {
		t.Errorf("a repository with a policy and no write has state %+v, %v; want ErrNotFound", st, err)
	}
	repos, err := s.Repos(ctx, "acme/")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range repos {
		if r.Repo == "acme/new" {
			t.Errorf("Repos lists acme/new, which was never written: %+v", r)
		}
	}
	refused(cut(write("acme/new", at(11), contents{"a.md": "x\n"}), server.ReviewOff), server.ReviewChanges)
	apply(t, s, cut(write("acme/new", at(12), contents{"a.md": "x\n"}), server.ReviewChanges))
}

// testReviewStaleGuess: two Services over one store, as two replicas over
// one database: a policy set through one holds for the other's next write,
// which already guessed the repository's policy (it wrote it before) and
// is told of the change by the store alone; set back to off, the other's
// next write lands.
func testReviewStaleGuess(t *testing.T, s server.Store) {
	a, b := newReviewRig(t, s), newReviewRig(t, s)
	b.put(b.bob, contents{"a.md": "one\n"})
	a.policy(server.ReviewAll)
	res := b.put(b.bob, contents{"a.md": "two\n"})
	if res.Proposal == nil || len(res.Changed) != 0 {
		t.Fatalf("a write through B after policy all was set through A = %+v; want a proposal and nothing changed", res)
	}
	if got := b.live()["a.md"]; got != "one\n" {
		t.Errorf("a.md = %q after a write under review; want it unchanged", got)
	}
	a.policy(server.ReviewOff)
	res = b.put(b.bob, contents{"a.md": "three\n"})
	if res.Proposal != nil || len(res.Changed) != 1 {
		t.Errorf("a write through B after policy off was set through A = %+v; want it landed", res)
	}
	if got := b.live()["a.md"]; got != "three\n" {
		t.Errorf("a.md = %q; want the write landed", got)
	}
}
