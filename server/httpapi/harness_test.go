package httpapi_test

import (
	"context"
	"testing"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/postgres"
	"github.com/teammem/teammem/testkit/pgtest"
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
	open := func() server.Store {
		db, err := postgres.Open(context.Background(), dbURL, postgres.Options{Migrate: true})
		if err != nil {
			t.Fatal(err)
		}
		return db
	}
	a = newTestServer(t, servertest.Options{Store: open()})
	return a, &testServer{Server: a.Replica(t, servertest.Options{Store: open()}), t: t}
}
