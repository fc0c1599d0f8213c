package postgres_test

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver

	"github.com/teammem/teammem/memcore/protocol"
	"github.com/teammem/teammem/migrations"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/postgres"
	"github.com/teammem/teammem/server/storetest"
	"github.com/teammem/teammem/testkit/pgtest"
)

func TestMigrate(t *testing.T) {
	ctx := context.Background()
	url := freshURL(t, pgtest.URL(t))
	if _, err := postgres.Open(ctx, url, postgres.Options{}); !errors.Is(err, migrations.ErrSchemaMismatch) {
		t.Fatalf("Open without Migrate on an empty database = %v; want ErrSchemaMismatch", err)
	}
	latest, _ := migrations.Latest(migrations.Postgres)
	storetest.Migrate(t, latest, func(ctx context.Context, cmd string, n int) (uint, bool, error) {
		return postgres.Migrate(ctx, url, cmd, n)
	})
	if err := open(t, url, postgres.Options{}).Ping(ctx); err != nil {
		t.Errorf("Ping: %v", err)
	}
}

// TestRollBackIsOneTransaction: a roll back whose second script fails
// leaves the first one undone too and the version where it was.
func TestRollBackIsOneTransaction(t *testing.T) {
	ctx := context.Background()
	db, err := sql.Open("pgx", freshURL(t, pgtest.URL(t)))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_, err = db.ExecContext(ctx, `CREATE TABLE schema_migrations (version bigint NOT NULL PRIMARY KEY, dirty boolean NOT NULL);
		INSERT INTO schema_migrations VALUES (2, false);
		CREATE TABLE a (x int); CREATE TABLE b (x int)`)
	if err != nil {
		t.Fatal(err)
	}
	fsys := fstest.MapFS{
		"000001_a.up.sql":   {Data: []byte("CREATE TABLE a (x int);")},
		"000001_a.down.sql": {Data: []byte("DROP TABLE a; SELECT 1/0;")},
		"000002_b.up.sql":   {Data: []byte("CREATE TABLE b (x int);")},
		"000002_b.down.sql": {Data: []byte("DROP TABLE b;")},
	}
	if _, err := migrations.RollBack(ctx, db, fsys, 2); err == nil {
		t.Fatal("a failing roll back succeeded")
	}
	var v int
	if err := db.QueryRowContext(ctx, `SELECT version FROM schema_migrations`).Scan(&v); err != nil || v != 2 {
		t.Errorf("version after the failed roll back = %d, %v; want 2", v, err)
	}
	for _, table := range []string{"a", "b"} {
		if _, err := db.ExecContext(ctx, "SELECT * FROM "+table); err != nil {
			t.Errorf("table %s is gone after the failed roll back: %v", table, err)
		}
	}
	if v, err := migrations.RollBack(ctx, db, fsys, 1); err != nil || v != 1 {
		t.Errorf("roll back 1 = %d, %v; want 1", v, err)
	}
}

// TestMigrateProvenance: versions written before provenance say unknown
// after the migration (storetest.ProvenanceMigration).
func TestMigrateProvenance(t *testing.T) {
	url := freshURL(t, pgtest.URL(t))
	latest, _ := migrations.Latest(migrations.Postgres)
	raw, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	storetest.ProvenanceMigration(t, latest, provenanceMigration,
		func(ctx context.Context, cmd string, n int) (uint, bool, error) {
			return postgres.Migrate(ctx, url, cmd, n)
		},
		func(t *testing.T) server.Store {
			db, err := postgres.Open(context.Background(), url, postgres.Options{})
			if err != nil {
				t.Fatal(err)
			}
			return db
		},
		func(ctx context.Context, q string) error { _, err := raw.ExecContext(ctx, q); return err })
}

// provenanceMigration is the number of the migration that records
// provenance.
const provenanceMigration = 12

// TestContentCompressedWithLZ4: once migrated, the content columns are
// compressed with lz4 (pglz took 11 % of the database's CPU under 16
// writers of one 2 KB key each), and a content written and read back
// through them is the same; rolled back one step, they compress with the
// server's default again.
func TestContentCompressedWithLZ4(t *testing.T) {
	ctx := context.Background()
	url := freshURL(t, pgtest.URL(t))
	if _, _, err := postgres.Migrate(ctx, url, "up", 0); err != nil {
		t.Fatal(err)
	}
	raw, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var lz4 bool
	if err := raw.QueryRowContext(ctx, `SELECT EXISTS (SELECT FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals))`).Scan(&lz4); err != nil {
		t.Fatal(err)
	}
	methods := func() string {
		var got string
		err := raw.QueryRowContext(ctx, `SELECT string_agg(attrelid::regclass::text || '=' || attcompression::text, ' ' ORDER BY attrelid::regclass::text)
			FROM pg_attribute WHERE attname = 'content' AND attrelid IN ('entries'::regclass, 'revisions'::regclass, 'proposal_changes'::regclass)`).Scan(&got)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	want := "entries=l proposal_changes=l revisions=l"
	if !lz4 {
		want = "entries= proposal_changes= revisions=" // the migration leaves a server without lz4 as it was
	}
	if got := methods(); got != want {
		t.Errorf("content compression %q; want %q", got, want)
	}
	db := open(t, url, postgres.Options{})
	big := strings.Repeat("a compressible line of a team memory note\n", 200)
	if _, err := db.Apply(ctx, server.Write{Repo: "acme/lz4", Puts: []server.Put{{Key: "big.md", Content: big, Checksum: protocol.EntryChecksum([]byte(big))}}, Author: "t"}); err != nil {
		t.Fatal(err)
	}
	snap, err := db.Snapshot(ctx, "acme/lz4", server.ReadOptions{WithContent: true})
	if err != nil || len(snap.Live) != 1 || snap.Live[0].Content != big {
		t.Fatalf("read back: %v, %d entries", err, len(snap.Live))
	}
	if _, _, err := postgres.Migrate(ctx, url, "down", 1); err != nil {
		t.Fatal(err)
	}
	if got := methods(); got != "entries= proposal_changes= revisions=" {
		t.Errorf("rolled back: content compression %q; want the default", got)
	}
}
