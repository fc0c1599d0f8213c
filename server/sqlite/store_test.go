package sqlite_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/teammem/teammem/migrations"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/sqlite"
	"github.com/teammem/teammem/server/storetest"
)

func open(t testing.TB) *sqlite.DB {
	t.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "teammem.db"), sqlite.Options{Migrate: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

func TestStore(t *testing.T) {
	storetest.Run(t, func(t *testing.T) server.Store { return open(t) })
}

func TestTokenRecords(t *testing.T) {
	storetest.TokenRecords(t, open(t))
}

func TestRevocations(t *testing.T) {
	storetest.Revocations(t, open(t))
}

func TestStaleReports(t *testing.T) {
	storetest.StaleReports(t, open(t))
}

func TestEndedSessions(t *testing.T) {
	storetest.EndedSessions(t, open(t))
}

// TestRevokeBesideServer records revocations through the file while a DB
// (the server) holds its lock, as `token revoke` does, and refuses a
// missing file or an old schema without creating or changing anything.
func TestRevokeBesideServer(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "teammem.db")
	db, err := sqlite.Open(ctx, path, sqlite.Options{Migrate: true})
	if err != nil {
		t.Fatal(err)
	}
	r := server.Revocation{TokenID: "abc", At: time.Now()}
	if err := sqlite.TokensAt(path).Revoke(ctx, r); err != nil {
		t.Fatalf("Revoke beside the server: %v", err)
	}
	got, err := db.Revocations(ctx)
	if err != nil || len(got) != 1 || got[0].TokenID != "abc" {
		t.Fatalf("server reads %v, %v; want the revocation of abc", got, err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if list, err := sqlite.TokensAt(path).Revocations(ctx); err != nil || len(list) != 1 {
		t.Errorf("ListRevocations = %v, %v; want one", list, err)
	}

	missing := filepath.Join(dir, "elsewhere", "teammem.db")
	err = sqlite.TokensAt(missing).Revoke(ctx, r)
	if err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("Revoke on a missing file = %v; want an error naming %s", err, missing)
	}
	if _, serr := os.Stat(missing); !errors.Is(serr, fs.ErrNotExist) {
		t.Errorf("Revoke created %s", missing)
	}

	if _, _, err := sqlite.Migrate(ctx, path, migrations.Down, 1); err != nil {
		t.Fatal(err)
	}
	err = sqlite.TokensAt(path).Revoke(ctx, server.Revocation{TokenID: "def", At: time.Now()})
	if !errors.Is(err, migrations.ErrSchemaMismatch) || !strings.Contains(err.Error(), "migrate up") {
		t.Errorf("Revoke on an old schema = %v; want a schema mismatch saying to migrate up", err)
	}
}

// TestServerIDKept reopens one database file: the identity made by its
// migration is kept, and another file has another.
func TestServerIDKept(t *testing.T) {
	path := filepath.Join(t.TempDir(), "teammem.db")
	a, err := sqlite.Open(context.Background(), path, sqlite.Options{Migrate: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := sqlite.Open(context.Background(), path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	storetest.SameServer(t, a, b, open(t))
}

func TestOAuth(t *testing.T) {
	db := open(t)
	storetest.OAuth(t, db, db)
}

func TestSignIns(t *testing.T) {
	db := open(t)
	storetest.SignIns(t, db, db)
}

func TestDeviceGrant(t *testing.T) {
	db := open(t)
	storetest.DeviceGrant(t, db, db)
}
