package storetest

import (
	"context"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/teammem/teammem/server"
)

func testActivity(t *testing.T, s server.Store) {
	historyRepo(t, s) // v1 a.md; v2 a.md, b.md by bob; v3 delete a.md; v4 a.md
	apply(t, s, write("other/repo", at(9), contents{"x.md": "x"}))
	apply(t, s, write(repo, at(4), contents{"c.md": "c", "b.md": "b2"}, "a.md")) // v5
	item := func(v int64, sec int, author string, changed []string, deleted ...string) server.VersionActivity {
		if deleted == nil {
			deleted = []string{}
		}
		return server.VersionActivity{Version: v, At: at(sec), Author: author, Provenance: provOf(author),
			Changed: changed, Deleted: deleted}
	}
	all := []server.VersionActivity{
		item(5, 4, "alice", []string{"b.md", "c.md"}, "a.md"),
		item(4, 3, "alice", []string{"a.md"}),
		item(3, 2, "alice", []string{}, "a.md"),
		item(2, 1, "bob", []string{"a.md", "b.md"}),
		item(1, 0, "alice", []string{"a.md"}),
	}
	tests := []struct {
		name   string
		before int64
		limit  int
		want   server.ActivityPage
	}{
		{"all", 0, 10, server.ActivityPage{Items: all}},
		{"exactly all", 0, 5, server.ActivityPage{Items: all}},
		{"first page", 0, 2, server.ActivityPage{Items: all[:2], Next: 4}},
		{"next page", 4, 2, server.ActivityPage{Items: all[2:4], Next: 2}},
		{"last page", 2, 2, server.ActivityPage{Items: all[4:]}},
		{"before the first", 1, 2, server.ActivityPage{Items: []server.VersionActivity{}}},
		{"before beyond the last", 99, 1, server.ActivityPage{Items: all[:1], Next: 5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.Activity(context.Background(), repo, tt.before, tt.limit)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.IgnoreFields(server.ActivityPage{}, "Revisions")); diff != "" {
				t.Errorf("Activity(before %d, limit %d) (-want +got):\n%s", tt.before, tt.limit, diff)
			}
			checkActivityRevisions(t, s, got)
		})
	}
	_, err := s.Activity(context.Background(), "never/written", 0, 10)
	wantErr(t, err, server.ErrNotFound)
	_, err = s.Activity(context.Background(), "never/written", 5, 10)
	wantErr(t, err, server.ErrNotFound)
}

// checkActivityRevisions checks a page's Revisions: the revisions of its
// versions, newest first and then by key, each as History has it.
func checkActivityRevisions(t *testing.T, s server.Store, page server.ActivityPage) {
	t.Helper()
	var want []server.Revision
	for _, it := range page.Items {
		keys := append(append([]string{}, it.Changed...), it.Deleted...)
		slices.Sort(keys)
		for _, k := range keys {
			revs, err := s.History(context.Background(), repo, k, it.Version+1, 1)
			if err != nil || len(revs) != 1 {
				t.Fatalf("History of %s at %d: %v %v", k, it.Version, revs, err)
			}
			revs[0].Repo, revs[0].Size = "", 0 // not read by Activity
			want = append(want, revs[0])
		}
	}
	if diff := cmp.Diff(want, page.Revisions, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("Activity's revisions (-want +got):\n%s", diff)
	}
}
