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
)

// flakyStore injects the fault a database outage produces: every call fails
// with ErrUnavailable while down is set.
type flakyStore struct {
	server.Store
	down atomic.Bool
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
	fs := &flakyStore{Store: db}
	ts := newTestServer(t, serverOpts{store: fs})
	ts.put("acme/api", map[string]string{"a.md": "a"}, nil, http.StatusOK)
	fs.down.Store(true)
	for _, r := range []response{
		ts.do(http.MethodGet, api.PathTeamMemory+"?repo=acme/api", ts.admin, nil),
		ts.do(http.MethodPut, api.PathTeamMemory+"?repo=acme/api", ts.admin, []byte(`{"entries":{"b.md":"b"}}`)),
	} {
		if r.status != http.StatusServiceUnavailable || r.header.Get("Retry-After") == "" || r.errorBody(t).Type != api.TypeAPI {
			t.Errorf("during the outage: %d %v %s", r.status, r.header, r.body)
		}
	}
	if r := ts.do(http.MethodGet, api.PathReadyz, "", nil); r.status != http.StatusServiceUnavailable {
		t.Errorf("readyz during the outage = %d", r.status)
	}
	if r := ts.do(http.MethodGet, api.PathHealthz, "", nil); r.status != http.StatusOK {
		t.Errorf("healthz during the outage = %d", r.status)
	}
	fs.down.Store(false)
	ts.get("repo=acme/api", http.StatusOK)
	if r := ts.do(http.MethodGet, api.PathReadyz, "", nil); r.status != http.StatusOK {
		t.Errorf("readyz after the outage = %d", r.status)
	}
}
