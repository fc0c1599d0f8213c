package httpapi_test

import (
	"testing"

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
