package storetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/teammem/teammem/server"
)

// provOf is the provenance the suite's writes carry (write), for author.
func provOf(author string) server.Provenance {
	return server.Provenance{Subject: author, Credential: "token:0123456789abcdef01234567", Surface: server.SurfaceAgent,
		Client: "teammem-agent/1.2.3", Machine: "build-01", Commit: "0123456789abcdef0123456789abcdef01234567"}
}

// testProvenance: every read of a revision (History, Revision, the newest
// Revision, KeyRevisions, Activity, Events) carries the provenance its
// version was written with, whatever it holds, and its subject is the
// revision's author.
func testProvenance(t *testing.T, s server.Store) {
	ctx := context.Background()
	web := server.Provenance{Subject: "ana", DisplayName: "Ana Silva", Credential: "session:c2Vzc2lvbi1pZC0wMTIzNDU2",
		Surface: server.SurfaceRestore, Client: "Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0"}
	w1 := write(repo, at(0), contents{"MEMORY.md": "- one\n", "a.md": "a"})
	w2 := write(repo, at(1), contents{"MEMORY.md": "- one\n- two\n"}, "a.md")
	w2.Author, w2.Provenance = "ana", web
	apply(t, s, w1)
	apply(t, s, w2)
	want := map[int64]server.Provenance{1: provOf("alice"), 2: web}

	hist, err := s.History(ctx, repo, "MEMORY.md", 0, 0)
	if err != nil || len(hist) != 2 {
		t.Fatalf("History = %v, %v; want 2 revisions", hist, err)
	}
	for _, r := range hist {
		checkProvenance(t, "History", r.Version, want[r.Version], r.Provenance)
		got, err := s.Revision(ctx, repo, "MEMORY.md", r.Version)
		if err != nil {
			t.Fatal(err)
		}
		checkProvenance(t, "Revision", r.Version, want[r.Version], got.Provenance)
	}
	newest, err := s.Revision(ctx, repo, "a.md", 0)
	if err != nil {
		t.Fatal(err)
	}
	checkProvenance(t, "newest Revision (a delete)", newest.Version, web, newest.Provenance)
	err = s.KeyRevisions(ctx, repo, "MEMORY.md", 0, func(r server.Revision) error {
		checkProvenance(t, "KeyRevisions", r.Version, want[r.Version], r.Provenance)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	page, err := s.Activity(ctx, repo, 0, 10)
	if err != nil || len(page.Items) != 2 {
		t.Fatalf("Activity = %+v, %v; want 2 versions", page, err)
	}
	for _, it := range page.Items {
		checkProvenance(t, "Activity", it.Version, want[it.Version], it.Provenance)
	}
	evs, err := s.Events(ctx, repo, 0, 10)
	if err != nil || len(evs) != 2 {
		t.Fatalf("Events = %v, %v; want 2", evs, err)
	}
	for _, ev := range evs {
		checkProvenance(t, "Events", ev.Version, want[ev.Version], ev.Provenance)
	}
}

func checkProvenance(t *testing.T, read string, version int64, want, got server.Provenance) {
	t.Helper()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s: provenance of version %d (-want +got):\n%s", read, version, diff)
	}
}

// testProvenanceGrouped: writes committed together (a store may group
// concurrent writes in one transaction) each keep their own provenance.
func testProvenanceGrouped(t *testing.T, s server.Store) {
	const writers = 12
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for i := range writers {
		wg.Go(func() {
			w := write(repo, at(i), contents{fmt.Sprintf("k%02d.md", i): "x"})
			w.Provenance.Machine = fmt.Sprintf("m%02d", i)
			if _, err := s.Apply(context.Background(), w); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	page, err := s.Activity(context.Background(), repo, 0, writers+1)
	if err != nil || len(page.Items) != writers {
		t.Fatalf("Activity = %d versions, %v; want %d", len(page.Items), err, writers)
	}
	for _, it := range page.Items {
		var i int
		if _, err := fmt.Sscanf(it.Changed[0], "k%02d.md", &i); err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("m%02d", i); it.Provenance.Machine != want {
			t.Errorf("version %d changed %s but names machine %q; want %q", it.Version, it.Changed[0], it.Provenance.Machine, want)
		}
	}
}

// testKeyRevisions: a key's revisions oldest first with their content
// (a delete's is empty), up to a version or all; a key without any up to
// it is ErrNotFound; an error of visit stops the read and is returned.
func testKeyRevisions(t *testing.T, s server.Store) {
	ctx := context.Background()
	historyRepo(t, s) // a.md: 1 put v1, 2 put by bob, 3 delete, 4 put v4
	read := func(through int64) ([]int64, []string, error) {
		var versions []int64
		var texts []string
		err := s.KeyRevisions(ctx, repo, "a.md", through, func(r server.Revision) error {
			if r.Repo != repo || r.Key != "a.md" || r.Provenance.Subject != r.Author {
				t.Errorf("revision %d: %+v", r.Version, r)
			}
			versions, texts = append(versions, r.Version), append(texts, r.Content)
			return nil
		})
		return versions, texts, err
	}
	for _, tt := range []struct {
		through  int64
		versions []int64
		texts    []string
	}{
		{0, []int64{1, 2, 3, 4}, []string{"v1", "v2 longer", "", "v4"}},
		{3, []int64{1, 2, 3}, []string{"v1", "v2 longer", ""}},
		{1, []int64{1}, []string{"v1"}},
		{99, []int64{1, 2, 3, 4}, []string{"v1", "v2 longer", "", "v4"}},
	} {
		versions, texts, err := read(tt.through)
		if err != nil {
			t.Fatalf("through %d: %v", tt.through, err)
		}
		if diff := cmp.Diff([2]any{tt.versions, tt.texts}, [2]any{versions, texts}, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("through %d (-want +got):\n%s", tt.through, diff)
		}
	}
	err := s.KeyRevisions(ctx, repo, "never.md", 0, func(server.Revision) error { return nil })
	wantErr(t, err, server.ErrNotFound)
	err = s.KeyRevisions(ctx, "other/repo", "a.md", 0, func(server.Revision) error { return nil })
	wantErr(t, err, server.ErrNotFound)
	stop := errors.New("stop")
	calls := 0
	err = s.KeyRevisions(ctx, repo, "a.md", 0, func(server.Revision) error { calls++; return stop })
	if !errors.Is(err, stop) || calls != 1 {
		t.Errorf("a visit failing at once: %v after %d calls; want stop after 1", err, calls)
	}
}

// ProvenanceMigration checks a store's provenance migration on a database
// holding data: written at the latest schema, rolled back to the one
// before provenance (step is the provenance migration's number), with one
// version's row deleted (as a version written before versions were
// recorded has none), and migrated up again, every revision reads back
// whole and says server.UnknownProvenance of its author; a write after
// it is stamped again. open opens the store at the latest schema; exec
// runs SQL on the database.
func ProvenanceMigration(t *testing.T, latest, step uint, migrate func(ctx context.Context, cmd string, n int) (uint, bool, error),
	open func(t *testing.T) server.Store, exec func(ctx context.Context, query string) error) {
	ctx := context.Background()
	if _, _, err := migrate(ctx, "up", 0); err != nil {
		t.Fatal(err)
	}
	s := open(t)
	apply(t, s, write(repo, at(0), contents{"MEMORY.md": "- one\n"}))
	apply(t, s, write(repo, at(1), contents{"MEMORY.md": "- one\n- two\n"}))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if v, _, err := migrate(ctx, "down", int(latest-step+1)); err != nil || v != step-1 {
		t.Fatalf("migrate down to %d = %d, %v", step-1, v, err)
	}
	if err := exec(ctx, `DELETE FROM versions WHERE version = 1`); err != nil {
		t.Fatal(err)
	}
	if v, _, err := migrate(ctx, "up", 0); err != nil || v != latest {
		t.Fatalf("migrate up = %d, %v; want %d", v, err, latest)
	}
	s = open(t)
	defer s.Close()
	texts := map[int64]string{1: "- one\n", 2: "- one\n- two\n"}
	err := s.KeyRevisions(ctx, repo, "MEMORY.md", 0, func(r server.Revision) error {
		if r.Content != texts[r.Version] {
			t.Errorf("version %d reads %q after the round trip; want %q", r.Version, r.Content, texts[r.Version])
		}
		checkProvenance(t, "KeyRevisions after the round trip", r.Version, server.UnknownProvenance("alice"), r.Provenance)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	evs, err := s.Events(ctx, repo, 0, 10)
	if err != nil || len(evs) != 2 {
		t.Fatalf("Events = %v, %v", evs, err)
	}
	for _, ev := range evs {
		checkProvenance(t, "Events after the round trip", ev.Version, server.UnknownProvenance("alice"), ev.Provenance)
	}
	apply(t, s, write(repo, at(2), contents{"MEMORY.md": "- three\n"}))
	newest, err := s.Revision(ctx, repo, "MEMORY.md", 0)
	if err != nil {
		t.Fatal(err)
	}
	checkProvenance(t, "a write after the round trip", newest.Version, provOf("alice"), newest.Provenance)
}
