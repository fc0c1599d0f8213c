package main

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/teammem/teammem/memcore/protocol"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/postgres"
	"github.com/teammem/teammem/server/sqlite"
	"github.com/teammem/teammem/testkit/pgtest"
)

// seedUntidy writes a repository with a duplicate and a dangling line.
func seedUntidy(t *testing.T, s server.Store) {
	t.Helper()
	files := map[string]string{
		"MEMORY.md": "- [a](a.md) — a\n- [gone](gone.md) — gone\n",
		"a.md":      "Use PgBouncer.\n",
		"b.md":      "use  pgbouncer.\n",
	}
	w := server.Write{Repo: "acme/api", Author: "admin", Provenance: server.UnknownProvenance("admin")}
	for _, k := range []string{"MEMORY.md", "a.md", "b.md"} {
		w.Puts = append(w.Puts, server.Put{Key: k, Content: files[k], Checksum: protocol.EntryChecksum([]byte(files[k]))})
	}
	if _, err := s.Apply(context.Background(), w); err != nil {
		t.Fatal(err)
	}
}

// TestTidyCommand: tidy --dry-run prints the findings and the plan and
// writes nothing; without it, it proposes the plan for review, as the
// operator, once however often it is run, and writes nothing either;
// upkeep prints and sets the settings; on both stores.
func TestTidyCommand(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"sqlite", "postgres"} {
		t.Run(name, func(t *testing.T) {
			var where []string
			var s server.Store
			if name == "sqlite" {
				dir := t.TempDir()
				db, err := sqlite.Open(ctx, filepath.Join(dir, embeddedDBName), sqlite.Options{Migrate: true})
				if err != nil {
					t.Fatal(err)
				}
				seedUntidy(t, db)
				_ = db.Close()
				where = []string{"--data-dir", dir}
			} else {
				url := pgtest.URL(t)
				db, err := postgres.Open(ctx, url, postgres.Options{Migrate: true})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = db.Close() })
				seedUntidy(t, db)
				s = db
				where = []string{"--database-url", url}
			}
			var out, errs bytes.Buffer
			e := env{stdout: &out, stderr: &errs, getenv: func(string) string { return "" }}
			if err := run(ctx, append([]string{"tidy", "--repo", "acme/api", "--dry-run"}, where...), e); err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{"acme/api at version 1: 3 findings", "duplicate", "delete  b.md (folded into a.md",
				"remove the line of MEMORY.md linking gone.md", "write   MEMORY.md (1 lines)"} {
				if !strings.Contains(out.String(), want) {
					t.Errorf("output lacks %q:\n%s", want, out.String())
				}
			}
			for range 2 { // the second is a replay: the same proposal
				out.Reset()
				if err := run(ctx, append([]string{"tidy", "--repo", "acme/api"}, where...), e); err != nil {
					t.Fatal(err)
				}
				if want := "proposal #1: 2 changes over version 1, waiting for an admin's review"; !strings.Contains(out.String(), want) {
					t.Errorf("tidy printed %q; want %q", out.String(), want)
				}
			}
			var ue usageError
			if err := run(ctx, append([]string{"tidy", "--repo", "acme/api", "--kinds", "conflicting-values"}, where...), e); !errors.As(err, &ue) {
				t.Errorf("a kind tidy cannot fix = %v; want a usage error", err)
			}
			for _, c := range []struct {
				args []string
				want string
			}{
				{nil, "acme/api: unused check off; daily tidy off"},
				{[]string{"--unused-days", "30", "--daily-tidy"}, "acme/api: unused check after 30 days; daily tidy on"},
				{[]string{"--daily-tidy=false"}, "acme/api: unused check after 30 days; daily tidy off"},
			} {
				out.Reset()
				if err := run(ctx, append(append([]string{"upkeep", "--repo", "acme/api"}, c.args...), where...), e); err != nil {
					t.Fatal(err)
				}
				if got := strings.TrimSpace(out.String()); got != c.want {
					t.Errorf("upkeep %v printed %q; want %q", c.args, got, c.want)
				}
			}
			if err := run(ctx, append([]string{"upkeep", "--repo", "acme/api", "--unused-days", "-3"}, where...), e); err == nil {
				t.Error("negative unused days accepted")
			}
			if s == nil {
				s = openSQLite(t, where[1])
			}
			checkProposedOnly(t, s)
		})
	}
}

// openSQLite opens the embedded store of dir, closed when the test ends.
func openSQLite(t *testing.T, dir string) server.Store {
	t.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(dir, embeddedDBName), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// checkProposedOnly checks that acme/api is as seedUntidy left it, with
// one open proposal of tidy's by the operator.
func checkProposedOnly(t *testing.T, s server.Store) {
	t.Helper()
	ctx := context.Background()
	if st, _ := s.RepoState(ctx, "acme/api"); st.Version != 1 {
		t.Errorf("tidy wrote: version %d", st.Version)
	}
	props, err := s.(server.ReviewStore).Proposals(ctx, server.ProposalQuery{Repo: "acme/api", Limit: 10})
	if err != nil || len(props) != 1 {
		t.Fatalf("proposals %+v, %v; want one", props, err)
	}
	p := props[0]
	if p.State != server.ProposalOpen || !strings.HasPrefix(p.Author, "operator:") || p.Provenance.Surface != server.SurfaceConsolidation ||
		p.Provenance.Client != "teammem tidy (cli)" || !slices.Equal(p.Keys(), []string{"MEMORY.md", "b.md"}) {
		t.Errorf("the proposal: %+v", p)
	}
}
