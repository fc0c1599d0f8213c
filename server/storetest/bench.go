package storetest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/teammem/teammem/server"
)

// Benchmarks measures the operations the server runs most: a one-key put
// into a repository of 20 and of 1,000 entries, the state read behind
// conditional GETs, a full pull of a small repository and a hashes probe of
// a large one, the revocation list, the walk of a long history a blame
// reads, and a report of stale references of every entry of a large
// repository and the read of all of them. open returns a new, empty
// store for each benchmark.
func Benchmarks(b *testing.B, open func(b *testing.B) server.Store) {
	for _, n := range []int{20, 1000} {
		b.Run(fmt.Sprintf("ApplyPut/entries=%d", n), func(b *testing.B) { benchApplyPut(b, open(b), n) })
	}
	b.Run("RepoState", func(b *testing.B) {
		s := open(b)
		seed(b, s, 20)
		ctx := context.Background()
		defer measureCPU(b)()
		for b.Loop() {
			if _, err := s.RepoState(ctx, repo); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Snapshot/content/entries=20", func(b *testing.B) {
		benchSnapshot(b, open(b), 20, server.ReadOptions{WithContent: true})
	})
	b.Run("Snapshot/hashes/entries=1000", func(b *testing.B) {
		benchSnapshot(b, open(b), 1000, server.ReadOptions{})
	})
	for _, n := range []int{1_000, 100_000} {
		b.Run(fmt.Sprintf("Activity/revisions=%d", n), func(b *testing.B) { benchActivity(b, open(b), n) })
	}
	b.Run("Revocations/rows=1000", func(b *testing.B) { benchRevocations(b, open(b), 1000) })
	b.Run(fmt.Sprintf("KeyRevisions/revisions=%d", BlameRevisions), func(b *testing.B) { benchKeyRevisions(b, open(b)) })
	for _, op := range []string{"save", "read"} {
		b.Run(fmt.Sprintf("StaleReports/%s/entries=1000", op), func(b *testing.B) { benchStaleReports(b, open(b), 1000, op) })
	}
}

// benchRevocations reads the whole revocation list, as every server does
// once per --revocation-refresh, holding n rows (half token ids, half
// subjects).
func benchRevocations(b *testing.B, s server.Store, n int) {
	rs, ok := s.(server.RevocationStore)
	if !ok {
		b.Skip("the store records no revocations")
	}
	ctx := context.Background()
	for i := range n {
		r := server.Revocation{TokenID: fmt.Sprintf("%024x", i), At: t0}
		if i%2 == 1 {
			r = server.Revocation{Subject: fmt.Sprintf("user-%d", i), Before: t0, At: t0}
		}
		if err := rs.Revoke(ctx, r); err != nil {
			b.Fatal(err)
		}
	}
	defer measureCPU(b)()
	for b.Loop() {
		if list, err := rs.Revocations(ctx); err != nil || len(list) != n {
			b.Fatalf("Revocations = %d rows, %v; want %d", len(list), err, n)
		}
	}
}

// benchActivity reads pages of 50 versions, alternately the newest and one
// in the middle of the history, from a repository of n revisions written
// 10 keys per version.
func benchActivity(b *testing.B, s server.Store, n int) {
	ctx := context.Background()
	versions := n / 10
	for v := range versions {
		c := contents{}
		for k := range 10 {
			c[benchKey((v*10+k)%1000)] = fmt.Sprintf("revision %d of key %d", v, k)
		}
		if _, err := s.Apply(ctx, write(repo, at(v), c)); err != nil {
			b.Fatal(err)
		}
	}
	i := 0
	for b.Loop() {
		i++
		before := int64(0)
		if i%2 == 0 {
			before = int64(versions/2 + 1)
		}
		page, err := s.Activity(ctx, repo, before, 50)
		if err != nil || len(page.Items) != 50 || len(page.Items[0].Changed) != 10 {
			b.Fatalf("Activity: %d items, %v", len(page.Items), err)
		}
	}
}

// seed writes n entries of about 1 KB each in batches of 100.
func seed(b *testing.B, s server.Store, n int) {
	b.Helper()
	for start := 0; start < n; start += 100 {
		c := contents{}
		for i := start; i < min(n, start+100); i++ {
			c[benchKey(i)] = benchContent(i, 0)
		}
		if _, err := s.Apply(context.Background(), write(repo, at(0), c)); err != nil {
			b.Fatal(err)
		}
	}
}

func benchKey(i int) string { return fmt.Sprintf("notes/topic-%04d.md", i) }

func benchContent(i, rev int) string {
	return fmt.Sprintf("# Topic %d, revision %d\n\n%s", i, rev, strings.Repeat("A line of team memory.\n", 44))
}

// benchApplyPut changes one existing key per write, so every write bumps
// the version and recomputes the dataset checksum.
func benchApplyPut(b *testing.B, s server.Store, n int) {
	seed(b, s, n)
	ctx := context.Background()
	i := 0
	defer measureCPU(b)()
	for b.Loop() {
		i++
		w := write(repo, at(1), contents{benchKey(i % n): benchContent(i%n, i)})
		if _, err := s.Apply(ctx, w); err != nil {
			b.Fatal(err)
		}
	}
}

func benchSnapshot(b *testing.B, s server.Store, n int, opts server.ReadOptions) {
	seed(b, s, n)
	ctx := context.Background()
	defer measureCPU(b)()
	for b.Loop() {
		snap, err := s.Snapshot(ctx, repo, opts)
		if err != nil || len(snap.Live) != n {
			b.Fatalf("Snapshot: %d entries, %v", len(snap.Live), err)
		}
	}
}
