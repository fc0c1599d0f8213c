package agent

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/client"
)

// TestEnginePushesConditionallyAfterCreatingTheRepo: an engine whose first
// pull found no repo (404) creates it with an unconditional PUT, and every
// later PUT must carry If-Match, so that another writer's edit made
// meanwhile is merged rather than overwritten.
func TestEnginePushesConditionallyAfterCreatingTheRepo(t *testing.T) {
	const base = "one\ntwo\nthree\nfour\nfive\nsix\n"
	tests := []struct {
		name string
		// between runs after the engine created the repo.
		between func(t *testing.T, r *rig)
	}{
		{"push right after", func(*testing.T, *rig) {}},
		{"push after a 304 poll", func(t *testing.T, r *rig) { r.sync(t) }},
		{"push after a pull since", func(t *testing.T, r *rig) {
			r.remote.mu.Lock()
			r.remote.apply(api.PutRequest{Entries: map[string]string{"other.md": "o\n"}})
			r.remote.mu.Unlock()
			r.sync(t)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t, nil, map[string]string{"x.md": base}, nil)
			r.sync(t) // 404, then the PUT that creates the repo
			if r.remote.ifMatches[0] != client.CreateOnly {
				t.Fatalf("the creating PUT carried %q, want If-None-Match: * (never an unconditional PUT)", r.remote.ifMatches[0])
			}
			tt.between(t, r)
			r.remote.mu.Lock()
			r.remote.apply(api.PutRequest{Entries: map[string]string{"x.md": "one\ntwo\nthree\nfour\nfive\nSIX (server)\n"}})
			r.remote.mu.Unlock()
			writeTree(t, r.dir, map[string]string{"x.md": "ONE (local)\ntwo\nthree\nfour\nfive\nsix\n"})
			rep, err := r.engine.Push(context.Background())
			if err != nil {
				t.Fatalf("Push: %v", err)
			}
			if diff := cmp.Diff([]string{"x.md"}, rep.PendingPull); diff != "" {
				t.Errorf("push left pending (-want +got):\n%s", diff)
			}
			r.sync(t) // a push leaves the server's edit for a pull to merge
			want := "ONE (local)\ntwo\nthree\nfour\nfive\nSIX (server)\n"
			if diff := cmp.Diff(want, r.remote.snapshot()["x.md"]); diff != "" {
				t.Errorf("server x.md (-want +got):\n%s", diff)
			}
			for i, m := range r.remote.ifMatches[1:] {
				if m == "" {
					t.Errorf("PUT %d after the repo existed went without If-Match", i+2)
				}
			}
		})
	}
}
