package httpapi_test

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/sqlite"
	"github.com/teammem/teammem/testkit/servertest"
)

// flakyStore injects the fault a database outage produces: every call fails
// with ErrUnavailable while down is set.
type flakyStore struct {
	server.Store
	server.SessionStore // the web UI's, passed through
	down                atomic.Bool
}

func (f *flakyStore) fail() error {
	if f.down.Load() {
		return fmt.Errorf("connect: %w", server.ErrUnavailable)
	}
	return nil
}

func (f *flakyStore) RepoState(ctx context.Context, repo string) (server.RepoState, error) {
	if err := f.fail(); err != nil {
		return server.RepoState{}, err
	}
	return f.Store.RepoState(ctx, repo)
}

func (f *flakyStore) Apply(ctx context.Context, w server.Write) (server.WriteResult, error) {
	if err := f.fail(); err != nil {
		return server.WriteResult{}, err
	}
	return f.Store.Apply(ctx, w)
}

func (f *flakyStore) Ping(ctx context.Context) error {
	if err := f.fail(); err != nil {
		return err
	}
	return f.Store.Ping(ctx)
}

func TestStoreOutageIs503(t *testing.T) {
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "t.db"), sqlite.Options{Migrate: true})
	if err != nil {
		t.Fatal(err)
	}
	fs := &flakyStore{Store: db, SessionStore: db}
	ts := newTestServer(t, servertest.Options{Store: fs})
	ts.Put("acme/api", map[string]string{"a.md": "a"}, nil, http.StatusOK)
	fs.down.Store(true)
	for _, r := range []servertest.Response{
		ts.Do(http.MethodGet, api.PathTeamMemory+"?repo=acme/api", ts.Admin, nil),
		ts.Do(http.MethodPut, api.PathTeamMemory+"?repo=acme/api", ts.Admin, []byte(`{"entries":{"b.md":"b"}}`)),
	} {
		if r.Status != http.StatusServiceUnavailable || r.Header.Get("Retry-After") == "" || r.ErrorBody(t).Type != api.TypeAPI {
			t.Errorf("during the outage: %d %v %s", r.Status, r.Header, r.Body)
		}
	}
	if r := ts.Do(http.MethodGet, api.PathReadyz, "", nil); r.Status != http.StatusServiceUnavailable {
		t.Errorf("readyz during the outage = %d", r.Status)
	}
	if r := ts.Do(http.MethodGet, api.PathHealthz, "", nil); r.Status != http.StatusOK {
		t.Errorf("healthz during the outage = %d", r.Status)
	}
	fs.down.Store(false)
	ts.Get("repo=acme/api", http.StatusOK)
	if r := ts.Do(http.MethodGet, api.PathReadyz, "", nil); r.Status != http.StatusOK {
		t.Errorf("readyz after the outage = %d", r.Status)
	}
}
