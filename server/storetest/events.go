package storetest

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/teammem/teammem/server"
)

// testEvents checks that Events tells every version once, in order, with
// its keys, author, time and dataset checksum, pages by versions, and
// refuses a version before the since-floor or after the current one.
func testEvents(t *testing.T, s server.Store) {
	ctx := context.Background()
	evs, err := s.Events(ctx, repo, 0, 10)
	if err != nil || len(evs) != 0 {
		t.Fatalf("Events of a never-written repo = %v, %v; want none", evs, err)
	}
	if _, err := s.Events(ctx, repo, 3, 10); err == nil {
		t.Fatal("Events after 3 of a never-written repo: no error; want ErrSinceTooOld")
	} else {
		wantErr(t, err, server.ErrSinceTooOld)
	}
	c1 := contents{"a.md": "1", "b.md": "2"}
	apply(t, s, write(repo, at(0), c1))
	w := write(repo, at(10), contents{"c.md": "3"}, "a.md")
	w.Author = "bob"
	apply(t, s, w)
	apply(t, s, write(repo, at(20), contents{"c.md": "3"})) // no change: no version
	apply(t, s, write(repo, at(30), nil, "b.md"))
	apply(t, s, write("other/repo", at(0), contents{"x.md": "1"}))
	ev := func(v int64, sum string, changed, deleted []string, author string, sec int) *server.Event {
		return &server.Event{Repo: repo, Version: v, Checksum: sum, Changed: changed, Deleted: deleted, Author: author,
			At: at(sec), Provenance: provOf(author)}
	}
	all := []*server.Event{
		ev(1, c1.checksum(), []string{"a.md", "b.md"}, []string{}, "alice", 0),
		ev(2, contents{"b.md": "2", "c.md": "3"}.checksum(), []string{"c.md"}, []string{"a.md"}, "bob", 10),
		ev(3, contents{"c.md": "3"}.checksum(), []string{}, []string{"b.md"}, "alice", 30),
	}
	opts := []cmp.Option{cmpopts.EquateEmpty(), cmpopts.IgnoreUnexported(server.Event{})}
	for _, tt := range []struct {
		name  string
		after int64
		limit int
		want  []*server.Event
	}{
		{"all", 0, 10, all},
		{"one page", 0, 2, all[:2]},
		{"next page", 2, 2, all[2:]},
		{"caught up", 3, 10, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.Events(ctx, repo, tt.after, tt.limit)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got, opts...); diff != "" {
				t.Errorf("Events(after %d, limit %d) (-want +got):\n%s", tt.after, tt.limit, diff)
			}
		})
	}
	_, err = s.Events(ctx, repo, 4, 10)
	wantErr(t, err, server.ErrSinceTooOld)
	if n, err := s.PurgeTombstones(ctx, at(15)); err != nil || n != 1 {
		t.Fatalf("PurgeTombstones = %d, %v; want 1", n, err)
	}
	_, err = s.Events(ctx, repo, 1, 10) // a.md's tombstone of version 2 is gone
	wantErr(t, err, server.ErrSinceTooOld)
	got, err := s.Events(ctx, repo, 2, 10)
	if err != nil || len(got) != 1 || got[0].Version != 3 {
		t.Errorf("Events after the floor = %v, %v; want version 3", got, err)
	}
}
