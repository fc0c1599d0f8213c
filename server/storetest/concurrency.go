package storetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/teammem/teammem/server"
)

// Writers and KeysPerWriter size the concurrent compare-and-swap test.
const (
	Writers       = 16
	KeysPerWriter = 3
)

// testConcurrentCAS runs Writers goroutines that each add their own keys
// with read-then-If-Match writes, retrying on a precondition failure: no
// acknowledged write may be lost and the version counts exactly the
// acknowledged changes.
func testConcurrentCAS(t *testing.T, s server.Store) { ConcurrentCAS(t, s) }

// ConcurrentCAS runs the concurrent compare-and-swap test with writer i
// using stores[i%len(stores)]: given two stores on one database (two
// replicas), it checks that writers serialise across processes too.
func ConcurrentCAS(t *testing.T, stores ...server.Store) {
	s := stores[0]
	apply(t, s, write(repo, at(0), contents{"seed.md": "seed"}))
	want := contents{"seed.md": "seed"}
	var mu sync.Mutex
	var wg sync.WaitGroup
	errs := make(chan error, Writers)
	for i := range Writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range KeysPerWriter {
				key, content := fmt.Sprintf("w%02d/k%d.md", i, k), fmt.Sprintf("writer %d key %d", i, k)
				if err := casPut(stores[i%len(stores)], key, content); err != nil {
					errs <- err
					return
				}
				mu.Lock()
				want[key] = content
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	st, err := s.RepoState(context.Background(), repo)
	if err != nil {
		t.Fatal(err)
	}
	// The seed was version 1; each acknowledged put added one.
	wantState(t, st, repo, int64(len(want)), want, st.UpdatedAt)
	if diff := cmp.Diff(want, liveContents(t, s, repo)); diff != "" {
		t.Errorf("contents after concurrent writes (-want +got):\n%s", diff)
	}
}

// casPut puts one key with If-Match set to the state it just read,
// retrying until the write is acknowledged.
func casPut(s server.Store, key, content string) error {
	ctx := context.Background()
	for range 1000 {
		st, err := s.RepoState(ctx, repo)
		if err != nil {
			return err
		}
		w := write(repo, at(1), contents{key: content})
		w.IfMatch = server.TagList(st.Checksum)
		res, err := s.Apply(ctx, w)
		if errors.Is(err, server.ErrPreconditionFailed) {
			continue
		}
		if err != nil {
			return fmt.Errorf("put %s: %w", key, err)
		}
		if len(res.Changed) != 1 || res.State.Version <= st.Version {
			return fmt.Errorf("put %s: acknowledged with Changed %v at version %d after %d", key, res.Changed, res.State.Version, st.Version)
		}
		return nil
	}
	return fmt.Errorf("put %s: still conflicting after 1000 attempts", key)
}
