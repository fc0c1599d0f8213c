package httpapi_test

import (
	"context"
	"testing"

	"github.com/teammem/teammem/server/postgres"
	"github.com/teammem/teammem/testkit/pgtest"
	"github.com/teammem/teammem/testkit/proctest"
	"github.com/teammem/teammem/testkit/servertest"
)

// testServer is a real server (embedded store unless one is given, real
// auth) behind httptest: testkit/servertest's, with this package's own
// helpers as methods.
type testServer struct {
	*servertest.Server
	t *testing.T
}

func newTestServer(t *testing.T, o servertest.Options) *testServer {
	t.Helper()
	return &testServer{Server: servertest.Start(t, o), t: t}
}

// pgReplicas starts two servers, each with its own pool on one fresh
// Postgres database, as two replicas behind a load balancer.
func pgReplicas(t *testing.T) (a, b *testServer) {
	t.Helper()
	dbURL := pgtest.URL(t)
	a = newTestServer(t, servertest.Options{Store: openPG(t, dbURL)})
	return a, &testServer{Server: a.Replica(t, servertest.Options{Store: openPG(t, dbURL)}), t: t}
}

// listeningReplicas are pgReplicas each with its LISTEN broker, as the
// real server runs: each tells its subscribers of the other's writes and
// proposals. It returns once both listen.
func listeningReplicas(t *testing.T) (a, b *testServer) {
	t.Helper()
	dbURL := pgtest.URL(t)
	dbA, dbB := openPG(t, dbURL), openPG(t, dbURL)
	a = newTestServer(t, servertest.Options{Store: dbA, Broker: dbA.NewBroker(nil)})
	b = &testServer{Server: a.Replica(t, servertest.Options{Store: dbB, Broker: dbB.NewBroker(nil)}), t: t}
	proctest.WaitFor(t, "both replicas to listen", func() bool { return a.Hub.Ready() == nil && b.Hub.Ready() == nil })
	return a, b
}

// openPG opens a pool of its own on dbURL, migrated; the server it is
// given to closes it.
func openPG(t *testing.T, dbURL string) *postgres.DB {
	t.Helper()
	db, err := postgres.Open(context.Background(), dbURL, postgres.Options{Migrate: true})
	if err != nil {
		t.Fatal(err)
	}
	return db
}
