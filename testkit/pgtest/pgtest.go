// Package pgtest gives each test its own empty PostgreSQL database on the
// server named by TEAMMEM_TEST_DATABASE_URL (start one with scripts/pg.sh).
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// EnvURL names the variable holding an admin URL of a running server, such
// as postgres://postgres@127.0.0.1:55432/postgres?sslmode=disable.
const EnvURL = "TEAMMEM_TEST_DATABASE_URL"

// URL creates a database named teammem_test_<random> on the server at
// $TEAMMEM_TEST_DATABASE_URL, drops it when the test ends, and returns its
// URL. Without the variable the test is skipped, or fails when $CI is set,
// so that CI never passes by skipping.
func URL(t testing.TB) string {
	t.Helper()
	admin := os.Getenv(EnvURL)
	if admin == "" {
		msg := EnvURL + " is not set; run the tests with `scripts/pg.sh with go test ./...` or `make test`"
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	u, err := url.Parse(admin)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		t.Fatalf("%s must be a postgres:// URL: %q", EnvURL, admin)
	}
	name := "teammem_test_" + randomSuffix(t)
	exec(t, admin, "CREATE DATABASE "+name)
	t.Cleanup(func() { exec(t, admin, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)") })
	u.Path = "/" + name
	return u.String()
}

// exec runs one statement on a short-lived admin connection.
func exec(t testing.TB, admin, sql string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		t.Fatalf("pgtest: connect to %s: %v", EnvURL, err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, sql); err != nil {
		t.Fatalf("pgtest: %s: %v", sql, err)
	}
}

func randomSuffix(t testing.TB) string {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b[:])
}
