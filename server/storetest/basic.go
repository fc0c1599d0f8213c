package storetest

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/teammem/teammem/memcore/protocol"
	"github.com/teammem/teammem/server"
)

const repo = "acme/api"

func testNeverWritten(t *testing.T, s server.Store) {
	ctx := context.Background()
	_, err := s.RepoState(ctx, repo)
	wantErr(t, err, server.ErrNotFound)
	_, err = s.Snapshot(ctx, repo, server.ReadOptions{})
	wantErr(t, err, server.ErrNotFound)
	_, err = s.History(ctx, repo, "MEMORY.md", 0, 10)
	wantErr(t, err, server.ErrNotFound)
	_, err = s.Revision(ctx, repo, "MEMORY.md", 1)
	wantErr(t, err, server.ErrNotFound)
	repos, err := s.Repos(ctx, "")
	if err != nil || len(repos) != 0 {
		t.Errorf("Repos = %v, %v; want none", repos, err)
	}
	if err := s.Ping(ctx); err != nil {
		t.Errorf("Ping: %v", err)
	}
}

func testFirstWrite(t *testing.T, s server.Store) {
	c := contents{"MEMORY.md": "# Memory\n", "decisions/db.md": "Postgres.\n", "a.md": ""}
	res := apply(t, s, write(repo, at(0), c))
	wantState(t, res.State, repo, 1, c, at(0))
	if diff := cmp.Diff([]string{"MEMORY.md", "a.md", "decisions/db.md"}, res.Changed); diff != "" {
		t.Errorf("Changed (-want +got):\n%s", diff)
	}
	if len(res.Deleted) != 0 {
		t.Errorf("Deleted = %v; want none", res.Deleted)
	}
	st, err := s.RepoState(context.Background(), repo)
	if err != nil {
		t.Fatal(err)
	}
	wantState(t, st, repo, 1, c, at(0))
	snap := snapshot(t, s, repo, server.ReadOptions{WithContent: true})
	wantState(t, snap.RepoState, repo, 1, c, at(0))
	if diff := cmp.Diff(c, liveContents(t, s, repo)); diff != "" {
		t.Errorf("live contents (-want +got):\n%s", diff)
	}
	for _, e := range snap.Live {
		if e.Version != 1 || !e.UpdatedAt.Equal(at(0)) {
			t.Errorf("entry %s: version %d at %v; want 1 at %v", e.Key, e.Version, e.UpdatedAt, at(0))
		}
	}
	for _, e := range snapshot(t, s, repo, server.ReadOptions{}).Live {
		if e.Content != "" || e.Size != int64(len(c[e.Key])) {
			t.Errorf("snapshot without content: entry %s has content %q size %d", e.Key, e.Content, e.Size)
		}
	}
}

func testIdenticalContent(t *testing.T, s server.Store) {
	c := contents{"a.md": "one", "b.md": "two"}
	apply(t, s, write(repo, at(0), c))
	res := apply(t, s, write(repo, at(1), contents{"a.md": "one"}))
	wantState(t, res.State, repo, 1, c, at(0))
	if len(res.Changed) != 0 || len(res.Deleted) != 0 {
		t.Errorf("identical put: Changed %v Deleted %v; want none", res.Changed, res.Deleted)
	}
	res = apply(t, s, write(repo, at(2), contents{"a.md": "one", "b.md": "TWO"}))
	wantState(t, res.State, repo, 2, contents{"a.md": "one", "b.md": "TWO"}, at(2))
	if diff := cmp.Diff([]string{"b.md"}, res.Changed); diff != "" {
		t.Errorf("Changed (-want +got):\n%s", diff)
	}
}

func testNoOpWrites(t *testing.T, s server.Store) {
	ctx := context.Background()
	res := apply(t, s, write(repo, at(0), nil, "absent.md"))
	want := server.RepoState{Repo: repo, Checksum: protocol.EmptyDatasetChecksum}
	if diff := cmp.Diff(want, res.State); diff != "" {
		t.Errorf("no-op on never-written repo (-want +got):\n%s", diff)
	}
	if _, err := s.RepoState(ctx, repo); err == nil {
		t.Errorf("a no-op write stored the never-written repository")
	}
	c := contents{"a.md": "one"}
	apply(t, s, write(repo, at(1), c))
	res = apply(t, s, write(repo, at(2), nil, "absent.md"))
	wantState(t, res.State, repo, 1, c, at(1))
	if len(res.Changed) != 0 || len(res.Deleted) != 0 {
		t.Errorf("delete of absent key: Changed %v Deleted %v; want none", res.Changed, res.Deleted)
	}
}

func testTombstones(t *testing.T, s server.Store) {
	apply(t, s, write(repo, at(0), contents{"a.md": "one", "b.md": "two", "c.md": "three"}))
	res := apply(t, s, write(repo, at(1), nil, "b.md", "c.md"))
	wantState(t, res.State, repo, 2, contents{"a.md": "one"}, at(1))
	if diff := cmp.Diff([]string{"b.md", "c.md"}, res.Deleted); diff != "" {
		t.Errorf("Deleted (-want +got):\n%s", diff)
	}
	snap := snapshot(t, s, repo, server.ReadOptions{})
	want := []server.Tombstone{{Key: "b.md", Version: 2, DeletedAt: at(1)}, {Key: "c.md", Version: 2, DeletedAt: at(1)}}
	if diff := cmp.Diff(want, snap.Deleted); diff != "" {
		t.Errorf("tombstones (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"a.md"}, keys(snap.Live)); diff != "" {
		t.Errorf("live keys (-want +got):\n%s", diff)
	}
	res = apply(t, s, write(repo, at(2), nil, "b.md"))
	if res.State.Version != 2 || len(res.Deleted) != 0 {
		t.Errorf("deleting a tombstone again: version %d Deleted %v; want 2, none", res.State.Version, res.Deleted)
	}
	res = apply(t, s, write(repo, at(3), contents{"b.md": "two"}))
	wantState(t, res.State, repo, 3, contents{"a.md": "one", "b.md": "two"}, at(3))
	snap = snapshot(t, s, repo, server.ReadOptions{})
	if diff := cmp.Diff([]string{"c.md"}, tombKeys(snap.Deleted)); diff != "" {
		t.Errorf("tombstones after re-put (-want +got):\n%s", diff)
	}
}

func testSince(t *testing.T, s server.Store) {
	apply(t, s, write(repo, at(0), contents{"a.md": "1", "b.md": "1", "c.md": "1"}))
	apply(t, s, write(repo, at(1), contents{"b.md": "2"}))
	apply(t, s, write(repo, at(2), contents{"d.md": "3"}, "c.md"))
	final := contents{"a.md": "1", "b.md": "2", "d.md": "3"}
	tests := []struct {
		since     int64
		live, del []string
	}{
		{0, []string{"a.md", "b.md", "d.md"}, []string{"c.md"}},
		{1, []string{"b.md", "d.md"}, []string{"c.md"}},
		{2, []string{"d.md"}, []string{"c.md"}},
		{3, []string{}, []string{}},
		{9, []string{}, []string{}},
	}
	for _, tt := range tests {
		snap := snapshot(t, s, repo, server.ReadOptions{Since: tt.since, WithContent: true})
		wantState(t, snap.RepoState, repo, 3, final, at(2))
		if diff := cmp.Diff(tt.live, keys(snap.Live)); diff != "" {
			t.Errorf("since %d: live (-want +got):\n%s", tt.since, diff)
		}
		if diff := cmp.Diff(tt.del, tombKeys(snap.Deleted)); diff != "" {
			t.Errorf("since %d: deleted (-want +got):\n%s", tt.since, diff)
		}
	}
}
