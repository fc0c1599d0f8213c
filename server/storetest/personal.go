package storetest

import (
	"context"
	"errors"
	"testing"

	"github.com/teammem/teammem/memcore/protocol"
	"github.com/teammem/teammem/server"
)

// testErase: EraseRepo removes a repository's entries, tombstones,
// revisions and search text, moves it one version on with its since-floor
// there, leaves every other repository alone, and the repository takes
// writes again without reusing a version number.
func testErase(t *testing.T, s server.Store) {
	ctx := context.Background()
	mine, other := server.PersonalRepo("alice", "acme/api"), "acme/api"
	apply(t, s, write(mine, at(0), contents{"a.md": "private plan zebra", "b.md": "two"}))
	apply(t, s, write(mine, at(1), nil, "b.md"))
	apply(t, s, write(other, at(2), contents{"a.md": "team zebra"}))

	before, after, err := s.EraseRepo(ctx, mine)
	if err != nil {
		t.Fatalf("EraseRepo: %v", err)
	}
	if before.Version != 2 || before.Entries != 1 || after.Version != 3 || after.Entries != 0 || after.Bytes != 0 ||
		after.Checksum != protocol.EmptyDatasetChecksum || after.Repo != mine {
		t.Fatalf("EraseRepo = %+v, %+v; want version 2 with 1 entry, then version 3 empty", before, after)
	}
	st, err := s.RepoState(ctx, mine)
	if err != nil || st.Version != 3 || st.Entries != 0 || st.Checksum != protocol.EmptyDatasetChecksum {
		t.Fatalf("RepoState after erase = %+v, %v", st, err)
	}
	snap := snapshot(t, s, mine, server.ReadOptions{WithContent: true})
	if len(snap.Live) != 0 || len(snap.Deleted) != 0 {
		t.Errorf("erased repository still holds %q and tombstones %q", keys(snap.Live), tombKeys(snap.Deleted))
	}
	if _, err := s.Snapshot(ctx, mine, server.ReadOptions{Since: 1}); err == nil {
		t.Error("a snapshot since a version before the erase succeeded; want ErrSinceTooOld")
	} else {
		wantErr(t, err, server.ErrSinceTooOld)
	}
	for _, key := range []string{"a.md", "b.md"} {
		if revs, err := s.History(ctx, mine, key, 0, 10); !errors.Is(err, server.ErrNotFound) && (err != nil || len(revs) != 0) {
			t.Errorf("History(%s) after erase = %d revisions, %v; want none", key, len(revs), err)
		}
		if _, err := s.Revision(ctx, mine, key, 1); err == nil {
			t.Errorf("Revision(%s, 1) after erase succeeded", key)
		}
	}
	wantHits(t, search(t, s, "zebra", mine))
	wantHits(t, search(t, s, "zebra", other), other+":a.md")
	if got := liveContents(t, s, other); len(got) != 1 || got["a.md"] != "team zebra" {
		t.Errorf("the other repository holds %v after the erase", got)
	}

	res := apply(t, s, write(mine, at(3), contents{"c.md": "again"}))
	if res.State.Version != 4 || res.State.Entries != 1 {
		t.Errorf("write after erase = %+v; want version 4 with 1 entry", res.State)
	}
	if _, _, err := s.EraseRepo(ctx, "never/written"); err == nil {
		t.Error("EraseRepo of a repository that never held data succeeded")
	} else {
		wantErr(t, err, server.ErrNotFound)
	}
}

// testSearchPersonal: AllRepos searches every team repository but no
// personal one unless Repos lists it.
func testSearchPersonal(t *testing.T, s server.Store) {
	alice, bob := server.PersonalRepo("alice", "acme/api"), server.PersonalRepo("bob", "acme/api")
	for _, r := range []string{"acme/api", alice, bob} {
		apply(t, s, write(r, at(0), contents{"x.md": "shared word"}))
	}
	wantHits(t, search(t, s, "shared"), "acme/api:x.md")
	hits := searchHitsIn(t, s, "shared", true, alice)
	wantSameHits(t, hits, "acme/api:x.md", alice+":x.md")
	wantHits(t, searchHitsIn(t, s, "shared", false, bob), bob+":x.md")
}

// searchHitsIn is search with AllRepos set as given.
func searchHitsIn(t *testing.T, s server.Store, q string, all bool, repos ...string) []string {
	t.Helper()
	var out []string
	for _, h := range searchPage(t, s, q, all, repos, 0) {
		out = append(out, h.Repo+":"+h.Key)
	}
	return out
}
