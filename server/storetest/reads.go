package storetest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/teammem/teammem/server"
)

// testPrecondition checks Store.Precondition against never-written,
// written and rewritten states: a store may let a write pass that Apply
// then refuses, never refuse one that holds; on this single store every
// answer is exact.
func testPrecondition(t *testing.T, s server.Store) {
	ctx := context.Background()
	check := func(c server.Preconditions, wantRefused bool) {
		t.Helper()
		err := s.Precondition(ctx, repo, c)
		var pe *server.PreconditionError
		switch {
		case wantRefused && !errors.As(err, &pe):
			t.Errorf("Precondition(%+v) = %v; want a *PreconditionError", c, err)
		case !wantRefused && err != nil:
			t.Errorf("Precondition(%+v) = %v; want nil", c, err)
		}
	}
	check(server.Preconditions{}, false)
	check(server.Preconditions{IfMatch: tags("*")}, true)
	check(server.Preconditions{IfMatch: tags("sha256:never")}, true)
	check(server.Preconditions{IfNoneMatch: tags("*")}, false)

	first := apply(t, s, write(repo, at(0), contents{"a.md": "a"})).State
	check(server.Preconditions{IfMatch: tags(first.Checksum)}, false)
	check(server.Preconditions{IfMatch: tags("sha256:other," + first.Checksum)}, false)
	check(server.Preconditions{IfMatch: tags("*")}, false)
	check(server.Preconditions{IfNoneMatch: tags("*")}, true)
	check(server.Preconditions{IfNoneMatch: tags(first.Checksum)}, true)
	check(server.Preconditions{IfNoneMatch: tags("sha256:other")}, false)

	second := apply(t, s, write(repo, at(1), contents{"b.md": "b"})).State
	check(server.Preconditions{IfMatch: tags(first.Checksum)}, true) // the state this store wrote before its last write
	check(server.Preconditions{IfMatch: tags(second.Checksum)}, false)
	check(server.Preconditions{IfMatch: tags(second.Checksum), IfNoneMatch: tags(second.Checksum)}, true)
	var pe *server.PreconditionError
	if err := s.Precondition(ctx, repo, server.Preconditions{IfMatch: tags(first.Checksum)}); !errors.As(err, &pe) || pe.Checksum != second.Checksum {
		t.Errorf("a stale If-Match: %v; want a *PreconditionError carrying the current checksum %s", err, second.Checksum)
	}
}

// testFreshReads: see FreshReads.
func testFreshReads(t *testing.T, s server.Store) { FreshReads(t, s) }

// FreshReads checks that a read never answers with a state older than a
// write acknowledged before the read was called, through any of the stores
// (replicas on one database): writers take turns on the stores while
// readers keep every store's reads busy (a store that shares a read among
// concurrent callers must not hand a late caller an earlier read's
// answer). After each acknowledged write, every store's RepoState, the
// hashes snapshot at that state and a write conditioned on it must reflect
// it.
func FreshReads(t *testing.T, stores ...server.Store) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	apply(t, stores[0], write(repo, at(0), contents{"seed.md": "seed"}))
	for i := range 4 * len(stores) {
		wg.Go(func() {
			s := stores[i%len(stores)]
			for ctx.Err() == nil {
				_, _ = s.RepoState(ctx, repo)
			}
		})
	}
	for i := range 200 {
		w := write(repo, at(i+1), contents{fmt.Sprintf("k%d.md", i%7): fmt.Sprint(i)})
		res := apply(t, stores[i%len(stores)], w)
		for j, s := range stores {
			st, err := s.RepoState(ctx, repo)
			if err != nil {
				t.Fatal(err)
			}
			if st.Version < res.State.Version {
				t.Fatalf("write %d acknowledged at version %d, then store %d reads version %d", i, res.State.Version, j, st.Version)
			}
			snap := snapshot(t, s, repo, server.ReadOptions{Current: &st})
			if snap.Version != st.Version || snap.Checksum != st.Checksum || len(snap.Live) != st.Entries {
				t.Fatalf("write %d, store %d: snapshot at %+v is %+v with %d live entries", i, j, st, snap.RepoState, len(snap.Live))
			}
		}
	}
}

// testMetaSnapshot: see MetaSnapshot.
func testMetaSnapshot(t *testing.T, s server.Store) { MetaSnapshot(t, s) }

// MetaSnapshot drives random writes, deletes and purges of a few
// repositories through the stores (replicas on one database) and checks,
// after each, that every store's snapshot without content at the current
// state (the hashes probe, which a store may serve from memory) is the
// full snapshot without its content. The one difference allowed: a store
// may still list tombstones another store purged, until the repository's
// next version (they are deletions the client already knew of).
func MetaSnapshot(t *testing.T, stores ...server.Store) {
	ctx := context.Background()
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	var cutoff time.Time // the latest purge's
	purger := -1         // the store that ran it
	for step := range 300 {
		r := fmt.Sprintf("acme/meta%d", rng.IntN(3))
		si := rng.IntN(len(stores))
		s := stores[si]
		w := server.Write{Repo: r, Author: "t", At: at(step)}
		switch n := rng.IntN(10); {
		case n < 6:
			w.Puts = []server.Put{put(fmt.Sprintf("k%02d.md", rng.IntN(12)), fmt.Sprint(rng.IntN(5)))}
		case n < 9:
			w.Deletes = []string{fmt.Sprintf("k%02d.md", rng.IntN(12))}
		default:
			cutoff = at(step - 20)
			if _, err := s.PurgeTombstones(ctx, cutoff); err != nil {
				t.Fatal(err)
			}
			purger = si
		}
		if len(w.Puts)+len(w.Deletes) > 0 {
			if _, err := s.Apply(ctx, w); err != nil {
				t.Fatal(err)
			}
		}
		for j, s := range stores {
			st, err := s.RepoState(ctx, r)
			if errors.Is(err, server.ErrNotFound) {
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			got := snapshot(t, s, r, server.ReadOptions{Current: &st})
			want := snapshot(t, s, r, server.ReadOptions{WithContent: true})
			for i := range want.Live {
				want.Live[i].Content = ""
			}
			if purger >= 0 && purger != j {
				// Another store purged: tombstones deleted before the cutoff may linger here.
				kept := got.Deleted[:0:0]
				for _, d := range got.Deleted {
					if !d.DeletedAt.Before(cutoff) || slices.Contains(want.Deleted, d) {
						kept = append(kept, d)
					}
				}
				got.Deleted = kept
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("step %d, store %d: snapshot without content differs from the full one (-full +meta):\n%s", step, j, diff)
			}
		}
	}
}
