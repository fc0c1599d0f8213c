package storetest

import (
	"context"
	"errors"
	"fmt"
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

// testSearchPersonalCandidates: a search across every team repository
// takes its bounded candidates among what it may show: another subject's
// personal entries and index lines matching the words (written last, so
// first in line on either store) neither take candidates nor lower the
// count, which would tell a searcher that somebody's personal memory holds
// the words.
func testSearchPersonalCandidates(t *testing.T, s server.Store) {
	team := contents{}
	for i := range server.SearchCandidates + 30 {
		team[fmt.Sprintf("n%04d.md", i)] = fmt.Sprintf("note %d about the common word", i)
	}
	apply(t, s, write("acme/web", at(0), team))
	bob := server.PersonalRepo("bob", "acme/web")
	mine, index := contents{}, ""
	for i := range 40 {
		key := fmt.Sprintf("p%02d.md", i)
		mine[key] = "bob's private note on the common word"
		index += fmt.Sprintf("- [P%d](%s) — the common word\n", i, key)
	}
	mine[protocol.IndexName] = index
	apply(t, s, write(bob, at(1), mine))
	seen := map[string]bool{}
	for off := 0; ; off += 50 {
		hits := searchPage(t, s, "common", true, nil, off)
		for _, h := range hits {
			if h.Repo != "acme/web" {
				t.Fatalf("a search of the team repositories found %s:%s", h.Repo, h.Key)
			}
			seen[h.Key] = true
		}
		if len(hits) < 50 {
			break
		}
	}
	if len(seen) != server.SearchCandidates {
		t.Errorf("paged through %d team entries, want the %d candidates: another subject's personal entries took the rest", len(seen), server.SearchCandidates)
	}
}
