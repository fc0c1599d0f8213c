package health_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/health"
)

func TestUpkeepStore(t *testing.T) {
	stores(t, t.Run, func(t *testing.T, s server.Store) {
		ctx := context.Background()
		up := s.(server.UpkeepStore)
		if st, err := up.UpkeepSettings(ctx, "acme/api"); err != nil || st != (server.UpkeepSettings{}) {
			t.Fatalf("default settings %+v, %v", st, err)
		}
		if err := up.SetUpkeepSettings(ctx, "acme/api", server.UpkeepSettings{UnusedDays: -1}); err == nil {
			t.Error("negative days accepted")
		}
		for _, r := range []string{"acme/web", "acme/api"} {
			if err := up.SetUpkeepSettings(ctx, r, server.UpkeepSettings{UnusedDays: 30, DailyTidy: true}); err != nil {
				t.Fatal(err)
			}
		}
		if err := up.SetUpkeepSettings(ctx, "acme/web", server.UpkeepSettings{UnusedDays: 7}); err != nil {
			t.Fatal(err)
		}
		if st, _ := up.UpkeepSettings(ctx, "acme/web"); st != (server.UpkeepSettings{UnusedDays: 7}) {
			t.Errorf("settings %+v", st)
		}
		if repos, err := up.DailyTidyRepos(ctx); err != nil || !slices.Equal(repos, []string{"acme/api"}) {
			t.Errorf("daily repos %v, %v", repos, err)
		}
		t1 := time.Date(2026, 1, 2, 3, 4, 5, 6000, time.UTC)
		if err := up.RecordReads(ctx, "acme/api", []string{"a.md", "b.md"}, t1); err != nil {
			t.Fatal(err)
		}
		if err := up.RecordReads(ctx, "acme/api", []string{"a.md"}, t1.Add(-time.Hour)); err != nil {
			t.Fatal(err)
		}
		reads, since, err := up.LastReads(ctx, "acme/api")
		if err != nil || len(reads) != 2 || !reads["a.md"].Equal(t1) || since.IsZero() {
			t.Errorf("reads %v since %v, %v; an earlier stamp must not replace a later one", reads, since, err)
		}
		if other, _, _ := up.LastReads(ctx, "acme/web"); len(other) != 0 {
			t.Errorf("another repository's reads: %v", other)
		}
	})
}

// TestUnusedFromReads: reads noted by the Service (read_memory, search
// hits) reach the store through the tracker, and the unused check of a
// repository that turned it on reads them.
func TestUnusedFromReads(t *testing.T) {
	stores(t, t.Run, func(t *testing.T, s server.Store) {
		ctx := context.Background()
		up := s.(server.UpkeepStore)
		later := time.Now().Add(40 * 24 * time.Hour)
		tracker := &health.ReadTracker{Store: up, Now: func() time.Time { return later.Add(-5 * 24 * time.Hour) }}
		svc := server.NewService(s, server.Config{Reads: tracker})
		repo := "acme/api"
		seedStore(t, s, repo, map[string]string{"MEMORY.md": indexOf("read.md", "found.md", "idle.md"),
			"read.md": "Read me.\n", "found.md": "Zebra crossing.\n", "idle.md": "Nobody.\n"}, time.Now())
		checker := &health.Checker{Service: svc, Upkeep: up, Now: func() time.Time { return later }}
		if _, err := svc.Revision(ctx, admin, repo, "read.md", 0); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Search(ctx, admin, server.SearchQuery{Text: "zebra", Repo: repo}); err != nil {
			t.Fatal(err)
		}
		tracker.Flush(ctx)
		r, err := checker.Report(ctx, admin, repo)
		if err != nil {
			t.Fatal(err)
		}
		if got := keysOf(r, health.KindUnused); len(got) != 0 {
			t.Errorf("unused reported while the setting is off: %v", got)
		}
		if err := svc.SetUpkeep(ctx, admin, repo, server.UpkeepSettings{UnusedDays: 30}); err != nil {
			t.Fatal(err)
		}
		if r, err = checker.Report(ctx, admin, repo); err != nil {
			t.Fatal(err)
		}
		if got := keysOf(r, health.KindUnused); len(got) != 1 || got[0][0] != "idle.md" {
			t.Errorf("unused %v; want idle.md alone", got)
		}
		reader := server.Principal{Subject: "rita", Grants: []server.Grant{{Glob: []string{"acme", "api"}, Perm: server.PermWrite}}}
		if err := svc.SetUpkeep(ctx, reader, repo, server.UpkeepSettings{}); err == nil {
			t.Error("a writer changed the upkeep settings")
		}
	})
}

// TestDailyTidy: the daily run proposes for the repositories that turned
// it on, once a period however many replicas run it.
func TestDailyTidy(t *testing.T) {
	stores(t, t.Run, func(t *testing.T, s server.Store) {
		ctx := context.Background()
		up := s.(server.UpkeepStore)
		svc := server.NewService(s, server.Config{Review: s.(server.ReviewStore)})
		seedStore(t, s, "acme/api", map[string]string{"MEMORY.md": indexOf("gone.md")}, time.Now())
		seedStore(t, s, "acme/web", map[string]string{"MEMORY.md": indexOf("gone.md")}, time.Now())
		if err := svc.SetUpkeep(ctx, admin, "acme/api", server.UpkeepSettings{DailyTidy: true}); err != nil {
			t.Fatal(err)
		}
		replicas := []*health.Daily{
			{Checker: &health.Checker{Service: svc, Upkeep: up}},
			{Checker: &health.Checker{Service: server.NewService(s, server.Config{Review: s.(server.ReviewStore)}), Upkeep: up}},
		}
		var wg sync.WaitGroup
		for _, d := range replicas {
			wg.Go(func() { d.Once(ctx) })
		}
		wg.Wait()
		props, _, err := svc.Proposals(ctx, admin, server.ProposalsRequest{State: server.ProposalOpen})
		if err != nil || len(props) != 1 || props[0].Repo != "acme/api" || props[0].Author != health.DailyPrincipal.Subject ||
			props[0].Provenance.Client != "teammem tidy (daily)" {
			t.Fatalf("open proposals from two replicas %+v, %v; want 1 of acme/api by the daily run", props, err)
		}
		if made := replicas[0].Once(ctx); len(made) != 0 {
			t.Errorf("a second round within the period proposed %v", made)
		}
	})
}
