package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/teammem/teammem/memcore/protocol"
	"github.com/teammem/teammem/server"
)

// historyRepo writes a.md at versions 1 (put), 2 (put), 3 (delete), 4
// (put), with b.md changing at 2 only, and returns the expected revisions
// of a.md, newest first.
func historyRepo(t *testing.T, s server.Store) []server.Revision {
	apply(t, s, write(repo, at(0), contents{"a.md": "v1"}))
	w := write(repo, at(1), contents{"a.md": "v2 longer", "b.md": "b"})
	w.Author = "bob"
	apply(t, s, w)
	apply(t, s, write(repo, at(2), nil, "a.md"))
	apply(t, s, write(repo, at(3), contents{"a.md": "v4"}))
	rev := func(v int64, op server.Op, content, author string, when time.Time) server.Revision {
		return server.Revision{Repo: repo, Key: "a.md", Version: v, Op: op,
			Checksum: protocol.EntryChecksum([]byte(content)), Size: int64(len(content)), Author: author, At: when,
			Provenance: provOf(author)}
	}
	return []server.Revision{
		rev(4, server.OpPut, "v4", "alice", at(3)),
		rev(3, server.OpDelete, "v2 longer", "alice", at(2)), // records what it deleted
		rev(2, server.OpPut, "v2 longer", "bob", at(1)),
		rev(1, server.OpPut, "v1", "alice", at(0)),
	}
}

func testHistory(t *testing.T, s server.Store) {
	all := historyRepo(t, s)
	tests := []struct {
		name   string
		before int64
		limit  int
		want   []server.Revision
	}{
		{"all", 0, 0, all},
		{"limit", 0, 2, all[:2]},
		{"before", 3, 0, all[2:]},
		{"before and limit", 4, 1, all[1:2]},
		{"before the first", 1, 10, []server.Revision{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.History(context.Background(), repo, "a.md", tt.before, tt.limit)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("History (-want +got):\n%s", diff)
			}
		})
	}
	_, err := s.History(context.Background(), repo, "never.md", 0, 0)
	wantErr(t, err, server.ErrNotFound)
	_, err = s.History(context.Background(), "other/repo", "a.md", 0, 0)
	wantErr(t, err, server.ErrNotFound)
}

func testHistories(t *testing.T, s server.Store) {
	a := historyRepo(t, s)
	b := server.Revision{Repo: repo, Key: "b.md", Version: 2, Op: server.OpPut, Checksum: protocol.EntryChecksum([]byte("b")),
		Size: 1, Author: "bob", At: at(1)}
	tests := []struct {
		name   string
		keys   []string
		before int64
		want   map[string][]server.Revision
	}{
		{"all", []string{"a.md", "b.md", "never.md"}, 0, map[string][]server.Revision{"a.md": a, "b.md": {b}}},
		{"before", []string{"a.md", "b.md"}, 3, map[string][]server.Revision{"a.md": a[2:], "b.md": {b}}},
		{"before a key's first", []string{"b.md", "a.md"}, 2, map[string][]server.Revision{"a.md": a[3:]}},
		{"one key", []string{"b.md"}, 0, map[string][]server.Revision{"b.md": {b}}},
		{"no key", nil, 0, map[string][]server.Revision{}},
		{"hostile key", []string{"a.md' OR 1=1 --", `"]`}, 0, map[string][]server.Revision{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.Histories(context.Background(), repo, tt.keys, tt.before)
			if err != nil {
				t.Fatal(err)
			}
			// Histories leaves provenance out (server.Store).
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty(), cmpopts.IgnoreFields(server.Revision{}, "Provenance")); diff != "" {
				t.Errorf("Histories (-want +got):\n%s", diff)
			}
		})
	}
	got, err := s.Histories(context.Background(), "other/repo", []string{"a.md"}, 0)
	if err != nil || len(got) != 0 {
		t.Errorf("Histories of a repository never written = %v, %v; want none", got, err)
	}
}

func testRevision(t *testing.T, s server.Store) {
	all := historyRepo(t, s)
	ctx := context.Background()
	contentOf := map[int64]string{4: "v4", 3: "", 2: "v2 longer", 1: "v1"}
	for _, want := range all {
		want.Content = contentOf[want.Version]
		got, err := s.Revision(ctx, repo, "a.md", want.Version)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Revision %d (-want +got):\n%s", want.Version, diff)
		}
	}
	got, err := s.Revision(ctx, repo, "b.md", 2)
	if err != nil || got.Content != "b" || got.Author != "bob" {
		t.Errorf("Revision(b.md, 2) = %+v, %v; want content b by bob", got, err)
	}
	for _, v := range []int64{1, 3, 5} {
		_, err := s.Revision(ctx, repo, "b.md", v)
		wantErr(t, err, server.ErrNotFound)
	}
	// Version 0 is the newest revision, a delete as well as a put.
	if got, err := s.Revision(ctx, repo, "a.md", 0); err != nil || got.Version != 4 || got.Content != "v4" {
		t.Errorf("Revision(a.md, 0) = %+v, %v; want version 4, v4", got, err)
	}
	apply(t, s, write(repo, at(4), nil, "a.md"))
	if got, err := s.Revision(ctx, repo, "a.md", 0); err != nil || got.Version != 5 || got.Op != server.OpDelete {
		t.Errorf("Revision(a.md, 0) after a delete = %+v, %v; want the delete at 5", got, err)
	}
	for _, r := range []string{repo, "other/repo"} {
		_, err := s.Revision(ctx, r, "never.md", 0)
		wantErr(t, err, server.ErrNotFound)
	}
}

func testLastAuthors(t *testing.T, s server.Store) {
	historyRepo(t, s) // a.md last put by alice at 4, b.md by bob at 2
	w := write(repo, at(4), contents{"c.md": "c"})
	w.Author = "carol"
	apply(t, s, w)
	apply(t, s, write(repo, at(5), nil, "c.md")) // tombstoned: not live
	apply(t, s, write("other/repo", at(0), contents{"a.md": "x"}))
	ctx := context.Background()
	got, err := s.LastAuthors(ctx, repo)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]string{"a.md": "alice", "b.md": "bob"}, got); diff != "" {
		t.Errorf("LastAuthors (-want +got):\n%s", diff)
	}
	got, err = s.LastAuthors(ctx, "never/written")
	if err != nil || len(got) != 0 {
		t.Errorf("LastAuthors(never/written) = %v, %v; want an empty map", got, err)
	}
}

func testRepos(t *testing.T, s server.Store) {
	apply(t, s, write("zeta/web", at(0), contents{"a.md": "1"}))
	apply(t, s, write("acme/api", at(1), contents{"a.md": "1", "b.md": "22"}))
	apply(t, s, write("acme/api", at(2), nil, "a.md"))
	apply(t, s, write("acme/never", at(3), nil, "a.md")) // no-op, stores nothing
	got, err := s.Repos(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	want := []server.RepoState{
		{Repo: "acme/api", Version: 2, Checksum: contents{"b.md": "22"}.checksum(), Entries: 1, Bytes: 2, UpdatedAt: at(2)},
		{Repo: "zeta/web", Version: 1, Checksum: contents{"a.md": "1"}.checksum(), Entries: 1, Bytes: 1, UpdatedAt: at(0)},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Repos (-want +got):\n%s", diff)
	}
}

func testPurgeTombstones(t *testing.T, s server.Store) {
	ctx := context.Background()
	apply(t, s, write(repo, at(0), contents{"a.md": "1", "b.md": "2", "c.md": "3"}))
	apply(t, s, write(repo, at(10), nil, "a.md"))           // v2
	apply(t, s, write(repo, at(20), nil, "b.md"))           // v3
	apply(t, s, write(repo, at(30), contents{"d.md": "4"})) // v4
	apply(t, s, write("other/repo", at(0), contents{"x.md": "1"}))
	n, err := s.PurgeTombstones(ctx, at(15))
	if err != nil || n != 1 {
		t.Fatalf("PurgeTombstones = %d, %v; want 1", n, err)
	}
	if got := tombKeys(snapshot(t, s, repo, server.ReadOptions{}).Deleted); !cmp.Equal(got, []string{"b.md"}) {
		t.Errorf("tombstones after purge = %v; want [b.md]", got)
	}
	_, err = s.Snapshot(ctx, repo, server.ReadOptions{Since: 1})
	wantErr(t, err, server.ErrSinceTooOld)
	snap := snapshot(t, s, repo, server.ReadOptions{Since: 2})
	if diff := cmp.Diff([]string{"d.md"}, keys(snap.Live)); diff != "" {
		t.Errorf("since 2 after purge (-want +got):\n%s", diff)
	}
	snapshot(t, s, "other/repo", server.ReadOptions{Since: 1}) // untouched floor
	st, err := s.RepoState(ctx, repo)
	if err != nil || st.Version != 4 || st.Checksum != (contents{"c.md": "3", "d.md": "4"}).checksum() {
		t.Errorf("state after purge = %+v, %v; want version 4 and unchanged checksum", st, err)
	}
	if n, err := s.PurgeTombstones(ctx, at(15)); err != nil || n != 0 {
		t.Errorf("second PurgeTombstones = %d, %v; want 0", n, err)
	}
	// The live set is unchanged by a purge: writes go on from version 4.
	res := apply(t, s, write(repo, at(40), contents{"a.md": "back"}))
	wantState(t, res.State, repo, 5, contents{"a.md": "back", "c.md": "3", "d.md": "4"}, at(40))
}
