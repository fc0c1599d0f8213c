package sqlite

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/teammem/teammem/memcore/protocol"
	"github.com/teammem/teammem/server"
)

// TestMetaCacheMatchesSQL drives random writes, deletes and purges and, after
// each, compares the in-memory metadata snapshot with the one read in SQL.
func TestMetaCacheMatchesSQL(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "m.db"), Options{Migrate: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	meta := server.ReadOptions{}
	hits := 0
	for step := 0; step < 300; step++ {
		repo := fmt.Sprintf("acme/r%d", rng.IntN(3))
		w := server.Write{Repo: repo, Author: "t", At: now.Add(time.Duration(step) * time.Second)}
		switch r := rng.IntN(10); {
		case r < 6:
			k := fmt.Sprintf("k%02d.md", rng.IntN(12))
			c := fmt.Sprint(rng.IntN(5))
			w.Puts = []server.Put{{Key: k, Content: c, Checksum: protocol.EntryChecksum([]byte(c))}}
		case r < 9:
			w.Deletes = []string{fmt.Sprintf("k%02d.md", rng.IntN(12))}
		default:
			if _, err := db.PurgeTombstones(ctx, now.Add(time.Duration(step-20)*time.Second)); err != nil {
				t.Fatal(err)
			}
		}
		if len(w.Puts)+len(w.Deletes) > 0 {
			if _, err := db.Apply(ctx, w); err != nil {
				t.Fatal(err)
			}
		}
		st, err := db.RepoState(ctx, repo)
		if err != nil {
			continue // never written yet
		}
		if _, ok := db.meta.Snapshot(st); ok {
			hits++
		}
		got, err := db.Snapshot(ctx, repo, meta)
		if err != nil {
			t.Fatal(err)
		}
		want, err := db.readSnapshot(ctx, repo, meta)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("step %d: cached metadata differs from SQL (-sql +cache):\n%s", step, diff)
		}
	}
	if hits < 100 {
		t.Errorf("the cache served only %d of the snapshots", hits)
	}
}
