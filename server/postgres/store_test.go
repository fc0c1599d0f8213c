package postgres_test

import (
	"context"
	"fmt"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/postgres"
	"github.com/teammem/teammem/server/storetest"
	"github.com/teammem/teammem/testkit/pgtest"
)

// schemas numbers the schemas freshURL creates.
var schemas atomic.Int64

// freshURL returns a URL of base whose search_path is a new, empty schema:
// creating a schema is much cheaper than creating a database per subtest.
func freshURL(t testing.TB, base string) string {
	t.Helper()
	ctx := context.Background()
	name := fmt.Sprintf("t%d", schemas.Add(1))
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+name); err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", name)
	u.RawQuery = q.Encode()
	return u.String()
}

func open(t testing.TB, url string, opts postgres.Options) *postgres.DB {
	t.Helper()
	db, err := postgres.Open(context.Background(), url, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

func TestStore(t *testing.T) {
	base := pgtest.URL(t)
	storetest.Run(t, func(t *testing.T) server.Store {
		return open(t, freshURL(t, base), postgres.Options{Migrate: true})
	})
}

// TestTwoReplicas writes one database through two pools, as two server
// replicas would: each one's checksum cache must notice the other's writes.
func TestTwoReplicas(t *testing.T) {
	url := freshURL(t, pgtest.URL(t))
	a := open(t, url, postgres.Options{Migrate: true})
	b := open(t, url, postgres.Options{})
	t.Run("alternate", func(t *testing.T) { storetest.Alternate(t, a, b) })
	t.Run("same server", func(t *testing.T) {
		storetest.SameServer(t, a, b, open(t, freshURL(t, pgtest.URL(t)), postgres.Options{Migrate: true}))
	})
	t.Run("concurrent", func(t *testing.T) {
		url := freshURL(t, pgtest.URL(t))
		a := open(t, url, postgres.Options{Migrate: true})
		b := open(t, url, postgres.Options{})
		storetest.ConcurrentCAS(t, a, b)
	})
	t.Run("fresh reads", func(t *testing.T) {
		url := freshURL(t, pgtest.URL(t))
		a := open(t, url, postgres.Options{Migrate: true})
		b := open(t, url, postgres.Options{})
		storetest.FreshReads(t, a, b)
	})
	t.Run("meta snapshot", func(t *testing.T) {
		url := freshURL(t, pgtest.URL(t))
		a := open(t, url, postgres.Options{Migrate: true})
		b := open(t, url, postgres.Options{})
		storetest.MetaSnapshot(t, a, b)
	})
}

func TestTokenRecords(t *testing.T) {
	storetest.TokenRecords(t, open(t, freshURL(t, pgtest.URL(t)), postgres.Options{Migrate: true}))
}

func TestRevocations(t *testing.T) {
	storetest.Revocations(t, open(t, freshURL(t, pgtest.URL(t)), postgres.Options{Migrate: true}))
}

func TestStaleReports(t *testing.T) {
	storetest.StaleReports(t, open(t, freshURL(t, pgtest.URL(t)), postgres.Options{Migrate: true}))
}

func TestEndedSessions(t *testing.T) {
	storetest.EndedSessions(t, open(t, freshURL(t, pgtest.URL(t)), postgres.Options{Migrate: true}))
}

// TestRevocationsTwoReplicas records a revocation through one pool and
// reads it through another, as a CLI and a replica would.
func TestRevocationsTwoReplicas(t *testing.T) {
	url := freshURL(t, pgtest.URL(t))
	a := open(t, url, postgres.Options{Migrate: true})
	b := open(t, url, postgres.Options{})
	ctx := context.Background()
	if err := a.Revoke(ctx, server.Revocation{Subject: "alice", Before: time.Now(), At: time.Now()}); err != nil {
		t.Fatal(err)
	}
	got, err := b.Revocations(ctx)
	if err != nil || len(got) != 1 || got[0].Subject != "alice" {
		t.Fatalf("the other replica reads %v, %v; want alice's revocation", got, err)
	}
}

// TestPoolSettingsInURL: pool_max_conns in the URL sizes the pool, and
// migrating through the same URL does not pass it to the server as a
// run-time parameter (which it refuses).
func TestPoolSettingsInURL(t *testing.T) {
	url := freshURL(t, pgtest.URL(t)) + "&pool_max_conns=3"
	db := open(t, url, postgres.Options{Migrate: true})
	if _, err := db.Apply(context.Background(), server.Write{Repo: "acme/pool", Author: "t",
		Puts: []server.Put{{Key: "a.md", Content: "a", Checksum: "sha256:a"}}}); err != nil {
		t.Fatal(err)
	}
	if v, _, err := postgres.Migrate(context.Background(), url, "version", 0); err != nil || v == 0 {
		t.Errorf("migrate version through a URL with pool settings: %d, %v", v, err)
	}
}

// TestOAuthTwoReplicas exchanges codes and rotates refresh tokens through
// two pools on one database, as two replicas would.
func TestOAuthTwoReplicas(t *testing.T) {
	url := freshURL(t, pgtest.URL(t))
	storetest.OAuth(t, open(t, url, postgres.Options{Migrate: true}), open(t, url, postgres.Options{}))
}

// TestSignInsTwoReplicas updates and ends sign-ins through two pools on
// one database, as two replicas would.
func TestSignInsTwoReplicas(t *testing.T) {
	url := freshURL(t, pgtest.URL(t))
	storetest.SignIns(t, open(t, url, postgres.Options{Migrate: true}), open(t, url, postgres.Options{}))
}

// TestDeviceGrantTwoReplicas decides and polls device authorizations
// through two pools on one database, as two replicas would.
func TestDeviceGrantTwoReplicas(t *testing.T) {
	url := freshURL(t, pgtest.URL(t))
	storetest.DeviceGrant(t, open(t, url, postgres.Options{Migrate: true}), open(t, url, postgres.Options{}))
}
