package health_test

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/teammem/teammem/memcore/protocol"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/health"
	"github.com/teammem/teammem/server/postgres"
	"github.com/teammem/teammem/server/sqlite"
	"github.com/teammem/teammem/testkit/pgtest"
)

// stores runs f on a fresh embedded store and a fresh Postgres store.
func stores[T testing.TB](t T, run func(string, func(T)) bool, f func(T, server.Store)) {
	run("sqlite", func(t T) {
		db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "db.sqlite"), sqlite.Options{Migrate: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = db.Close() })
		f(t, db)
	})
	run("postgres", func(t T) {
		db, err := postgres.Open(context.Background(), pgtest.URL(t), postgres.Options{Migrate: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = db.Close() })
		f(t, db)
	})
}

// admin may read and write every repository.
var admin = server.Principal{Subject: "admin", Grants: []server.Grant{{Glob: []string{"**"}, Perm: server.PermAdmin}}, Credential: "none"}

// seedStore writes files into the store's repo in one write at when.
func seedStore(t testing.TB, s server.Store, repo string, files map[string]string, when time.Time) server.WriteResult {
	t.Helper()
	w := server.Write{Repo: repo, Author: "admin", At: when,
		Provenance: server.UnknownProvenance("admin")}
	for _, k := range slices.Sorted(maps.Keys(files)) {
		w.Puts = append(w.Puts, server.Put{Key: k, Content: files[k], Checksum: protocol.EntryChecksum([]byte(files[k]))})
	}
	res, err := s.Apply(context.Background(), w)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// reportStale stores the case's stale reports through the Service.
func reportStale(t *testing.T, svc *server.Service, repo string, c kindCase) {
	t.Helper()
	if len(c.stale) == 0 {
		return
	}
	in := server.StaleReportInput{Commit: "0123456789abcdef0123456789abcdef01234567", Entries: map[string]server.StaleEntryInput{}}
	for k, fs := range c.stale {
		in.Entries[k] = server.StaleEntryInput{Checksum: protocol.EntryChecksum([]byte(c.files[k])), Findings: fs}
	}
	res, err := svc.ReportStale(context.Background(), admin, repo, in)
	if err != nil || len(res.Skipped) > 0 {
		t.Fatalf("ReportStale: %+v, %v", res, err)
	}
}

func TestGatherKindsOnStores(t *testing.T) {
	stores(t, t.Run, func(t *testing.T, s server.Store) {
		for i, c := range kindCases {
			t.Run(c.kind+"/"+c.name, func(t *testing.T) {
				repo := fmt.Sprintf("github.com/acme/case%d", i)
				svc := server.NewService(s, server.Config{Now: func() time.Time { return testNow }})
				seedStore(t, s, repo, c.files, written)
				reportStale(t, svc, repo, c)
				o := health.Options{Now: testNow, UnusedAfter: c.unused, Reads: func(context.Context, string) (map[string]time.Time, time.Time, error) {
					return reads(c), written, nil
				}}
				r, err := health.Gather(context.Background(), svc, admin, repo, o)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(c.want, keysOf(r, c.kind)); diff != "" {
					t.Errorf("findings of %s (-want +got):\n%s\nall: %+v", c.kind, diff, r.Findings)
				}
			})
		}
	})
}
