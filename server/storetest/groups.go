package storetest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/teammem/teammem/server"
)

// The stores apply writes that wait at the same moment together, in one
// transaction (a group). These tests submit writes at once so that they
// share groups, and check what each write's caller must see whatever the
// grouping: each write succeeds or fails alone, in an order consistent
// with the versions it was given.

// burst runs fn(i) for i in [0, n) at once and waits for them all.
func burst(n int, fn func(i int)) {
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			<-start
			fn(i)
		})
	}
	close(start)
	wg.Wait()
}

// testGroupManyRepos writes, at once, to one shared repository and to a
// repository of each writer's own: every write is acknowledged with a
// distinct version of its repository and every repository ends with
// exactly the writes made to it.
func testGroupManyRepos(t *testing.T, s server.Store) {
	const writers, rounds = 8, 4
	shared := repo
	var mu sync.Mutex
	versions := map[string]map[int64]bool{}
	var errs []error
	burst(writers, func(i int) {
		own := fmt.Sprintf("acme/own%d", i)
		for r := range rounds {
			for _, target := range []string{shared, own} {
				key := fmt.Sprintf("w%d/r%d.md", i, r)
				res, err := s.Apply(context.Background(), write(target, at(r), contents{key: "content of " + key}))
				mu.Lock()
				if err != nil {
					errs = append(errs, err)
				} else {
					if versions[target] == nil {
						versions[target] = map[int64]bool{}
					}
					if versions[target][res.State.Version] {
						errs = append(errs, fmt.Errorf("%s: version %d acknowledged twice", target, res.State.Version))
					}
					versions[target][res.State.Version] = true
				}
				mu.Unlock()
			}
		}
	})
	for _, err := range errs {
		t.Error(err)
	}
	want := func(writersOf []int) contents {
		c := contents{}
		for _, i := range writersOf {
			for r := range rounds {
				key := fmt.Sprintf("w%d/r%d.md", i, r)
				c[key] = "content of " + key
			}
		}
		return c
	}
	all := make([]int, writers)
	for i := range all {
		all[i] = i
	}
	checkRepo(t, s, shared, want(all))
	for i := range writers {
		checkRepo(t, s, fmt.Sprintf("acme/own%d", i), want([]int{i}))
	}
}

// checkRepo checks that repo holds exactly c, one version per key written.
func checkRepo(t *testing.T, s server.Store, repo string, c contents) {
	t.Helper()
	st, err := s.RepoState(context.Background(), repo)
	if err != nil {
		t.Fatal(err)
	}
	if st.Version != int64(len(c)) || st.Checksum != c.checksum() {
		t.Errorf("%s: version %d checksum %s; want %d and %s", repo, st.Version, st.Checksum, len(c), c.checksum())
	}
	if diff := cmp.Diff(c, liveContents(t, s, repo)); diff != "" {
		t.Errorf("%s (-want +got):\n%s", repo, diff)
	}
}

// testGroupFailuresStayAlone submits at once, against one state,
// unconditional writes, writes conditional on that state, a write
// conditional on a state that never was and a write over the entry limit:
// every unconditional write commits, at most one conditional write on
// the state does (and only when it came first), the others fail alone
// with their own error, and nothing a failed write carried is stored.
func testGroupFailuresStayAlone(t *testing.T, s server.Store) {
	seed := apply(t, s, write(repo, at(0), contents{"seed.md": "seed"}))
	const plain, conditional = 6, 6
	type outcome struct {
		key string
		res server.WriteResult
		err error
	}
	out := make([]outcome, plain+conditional+2)
	burst(len(out), func(i int) {
		key := fmt.Sprintf("k%02d.md", i)
		w := write(repo, at(1), contents{key: "content " + key})
		switch {
		case i < plain:
		case i < plain+conditional:
			w.IfMatch = server.TagList(seed.State.Checksum)
		case i == plain+conditional:
			w.IfMatch = server.TagList(contents{"never": "was"}.checksum())
		default:
			w.MaxEntries = 1 // the seed is there already
		}
		res, err := s.Apply(context.Background(), w)
		out[i] = outcome{key, res, err}
	})
	want := contents{"seed.md": "seed"}
	won := 0
	for i, o := range out {
		switch {
		case i < plain && o.err != nil:
			t.Errorf("unconditional write %s failed: %v", o.key, o.err)
		case i >= plain && i < plain+conditional && o.err != nil && !errors.Is(o.err, server.ErrPreconditionFailed):
			t.Errorf("conditional write %s: %v; want success or a failed precondition", o.key, o.err)
		case i >= plain && i < plain+conditional && o.err == nil:
			won++
			if o.res.State.Version != seed.State.Version+1 {
				t.Errorf("conditional write %s on version %d committed as version %d: a write came before it",
					o.key, seed.State.Version, o.res.State.Version)
			}
		case i == plain+conditional:
			wantErr(t, o.err, server.ErrPreconditionFailed)
		case i > plain+conditional:
			wantErr(t, o.err, server.ErrTooManyEntries)
		}
		if o.err == nil {
			want[o.key] = "content " + o.key
		}
	}
	if won > 1 {
		t.Errorf("%d writes conditional on one state committed; at most one may", won)
	}
	checkRepo(t, s, repo, want)
}

// testGroupConditionalChain submits at once a chain of writes, each
// conditional on the state the one before it leaves (computed ahead, as a
// client that knows what it wrote can): whichever of them are grouped
// together, the ones that commit are a prefix of the chain, each at the
// version its place in the chain gives it, and every other one fails its
// precondition and leaves nothing behind.
func testGroupConditionalChain(t *testing.T, s server.Store) {
	const links, rounds = 5, 6
	have := contents{"seed.md": "seed"}
	base := apply(t, s, write(repo, at(0), have)).State
	for r := range rounds {
		states := []contents{maps.Clone(have)}
		for i := range links {
			next := maps.Clone(states[i])
			next[fmt.Sprintf("r%d/l%d.md", r, i)] = fmt.Sprintf("round %d link %d", r, i)
			states = append(states, next)
		}
		results := make([]error, links)
		versions := make([]int64, links)
		burst(links, func(i int) {
			w := write(repo, at(r+1), contents{fmt.Sprintf("r%d/l%d.md", r, i): fmt.Sprintf("round %d link %d", r, i)})
			w.IfMatch = server.TagList(states[i].checksum())
			res, err := s.Apply(context.Background(), w)
			results[i], versions[i] = err, res.State.Version
		})
		committed := 0
		for i, err := range results {
			switch {
			case err == nil && i == committed:
				committed++
				if versions[i] != base.Version+int64(committed) {
					t.Errorf("round %d link %d committed as version %d; want %d", r, i, versions[i], base.Version+int64(committed))
				}
			case err == nil:
				t.Errorf("round %d: link %d committed though link %d did not", r, i, committed)
			case !errors.Is(err, server.ErrPreconditionFailed):
				t.Errorf("round %d link %d: %v; want success or a failed precondition", r, i, err)
			}
		}
		have = states[committed]
		base.Version += int64(committed)
		checkRepo(t, s, repo, have)
		if t.Failed() {
			return
		}
	}
}
