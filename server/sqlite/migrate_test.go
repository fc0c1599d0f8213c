package sqlite_test

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/teammem/teammem/migrations"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/sqlite"
	"github.com/teammem/teammem/server/storetest"
)

func TestMigrate(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "teammem.db")
	if _, err := sqlite.Open(ctx, path, sqlite.Options{}); !errors.Is(err, migrations.ErrSchemaMismatch) {
		t.Fatalf("Open without Migrate on a new file = %v; want ErrSchemaMismatch", err)
	}
	latest, _ := migrations.Latest(migrations.SQLite)
	storetest.Migrate(t, latest, func(ctx context.Context, cmd string, n int) (uint, bool, error) {
		return sqlite.Migrate(ctx, path, cmd, n)
	})
	db, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		t.Fatalf("Open after migrate up: %v", err)
	}
	defer db.Close()
	if err := db.Ping(ctx); err != nil {
		t.Errorf("Ping: %v", err)
	}
}

// TestMigrateKeepsContent writes a repository the way schema version 1
// stored it (content in both entries and revisions), migrates to the
// latest schema and checks that every entry reads back whole.
func TestMigrateKeepsContent(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "teammem.db")
	if _, _, err := sqlite.Migrate(ctx, path, migrations.Up, 1); err != nil {
		t.Fatal(err)
	}
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`INSERT INTO repos (slug, version, checksum, entries, bytes, updated_at) VALUES ('acme/api', 2, 'sum', 1, 5, 2)`,
		`INSERT INTO entries VALUES ('acme/api', 'a.md', 'a.md', 'sha256:a', 5, 1, 1, 0, NULL, 'alpha')`,
		`INSERT INTO entries VALUES ('acme/api', 'b.md', 'b.md', 'sha256:b', 4, 2, 2, 1, 2, '')`,
		`INSERT INTO revisions VALUES ('acme/api', 'a.md', 1, 'put', 'sha256:a', 5, 'alice', 1, 'alpha')`,
		`INSERT INTO revisions VALUES ('acme/api', 'b.md', 1, 'put', 'sha256:b', 4, 'alice', 1, 'beta')`,
		`INSERT INTO revisions VALUES ('acme/api', 'b.md', 2, 'delete', 'sha256:b', 4, 'alice', 2, '')`,
	} {
		if _, err := raw.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := raw.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := sqlite.Open(ctx, path, sqlite.Options{Migrate: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	snap, err := db.Snapshot(ctx, "acme/api", server.ReadOptions{WithContent: true})
	if err != nil {
		t.Fatal(err)
	}
	want := server.Snapshot{
		RepoState: server.RepoState{Repo: "acme/api", Version: 2, Checksum: "sum", Entries: 1, Bytes: 5, UpdatedAt: time.UnixMicro(2).UTC()},
		Live: []server.Entry{{Key: "a.md", Checksum: "sha256:a", Size: 5, Content: "alpha", Version: 1,
			UpdatedAt: time.UnixMicro(1).UTC()}},
		Deleted: []server.Tombstone{{Key: "b.md", Version: 2, DeletedAt: time.UnixMicro(2).UTC()}},
	}
	if diff := cmp.Diff(want, snap); diff != "" {
		t.Errorf("snapshot after migrating (-want +got):\n%s", diff)
	}
}

// TestMigrateNumbersByRecency: migration 13, applied to a database holding
// data (here: rolled back and applied again), numbers the live entries by
// their last write and its backfill indexes them again: a search finds
// every one, the newest first, an index line's entry above them, and a
// deleted one not at all.
func TestMigrateNumbersByRecency(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "teammem.db")
	db, err := sqlite.Open(ctx, path, sqlite.Options{Migrate: true})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, w := range []server.Write{
		{Repo: "acme/web", Puts: []server.Put{put("a.md", "walrus one"), put("b.md", "walrus two")}},
		{Repo: "acme/api", Puts: []server.Put{put("c.md", "walrus three")}},
		{Repo: "acme/web", Puts: []server.Put{put("MEMORY.md", "- [B](b.md) — walrus\n"), put("d.md", "walrus four")}},
		{Repo: "acme/web", Puts: []server.Put{put("a.md", "walrus one again")}},
		{Repo: "acme/api", Deletes: []string{"c.md"}},
	} {
		w.Author, w.At = "t", t0.Add(time.Duration(i)*time.Minute)
		if _, err := db.Apply(ctx, w); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"b.md", "a.md", "MEMORY.md", "d.md"}
	if got := storetest.SearchKeys(t, db, "acme/web", "walrus"); !slices.Equal(got, want) {
		t.Fatalf("before the round trip: %q, want %q", got, want)
	}
	db = reindexed(t, db, path)
	if got := storetest.SearchKeys(t, db, "acme/web", "walrus"); !slices.Equal(got, want) {
		t.Errorf("after migration 13: %q, want %q", got, want)
	}
	if got := storetest.SearchKeys(t, db, "acme/api", "walrus"); len(got) != 0 {
		t.Errorf("the deleted key is found: %q", got)
	}
}

// TestMigrateProvenance: versions written before provenance say unknown
// after the migration (storetest.ProvenanceMigration).
func TestMigrateProvenance(t *testing.T) {
	path := filepath.Join(t.TempDir(), "teammem.db")
	latest, _ := migrations.Latest(migrations.SQLite)
	storetest.ProvenanceMigration(t, latest, provenanceMigration,
		func(ctx context.Context, cmd string, n int) (uint, bool, error) {
			return sqlite.Migrate(ctx, path, cmd, n)
		},
		func(t *testing.T) server.Store {
			db, err := sqlite.Open(context.Background(), path, sqlite.Options{})
			if err != nil {
				t.Fatal(err)
			}
			return db
		},
		func(ctx context.Context, q string) error {
			raw, err := sql.Open("sqlite", path)
			if err != nil {
				return err
			}
			defer raw.Close()
			_, err = raw.ExecContext(ctx, q)
			return err
		})
}

// provenanceMigration is the number of the migration that records
// provenance.
const provenanceMigration = 15
