package mcprest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/client"
)

// revisionServer answers the history and revision reads of one key whose
// newest revision is version 3 (content "v3"). old makes it refuse a
// revision read without a version, as servers did before version 0 meant
// the newest.
type revisionServer struct {
	old      bool
	requests []string
}

func (s *revisionServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.requests = append(s.requests, r.URL.Path+"?"+r.URL.RawQuery)
	w.Header().Set("Content-Type", "application/json")
	switch r.URL.Path {
	case api.PathHistory:
		_ = json.NewEncoder(w).Encode(api.History{Repo: "acme/api", Key: "a.md", Revisions: []api.Revision{{Version: 3, Op: "put", Checksum: "sha256:3"}}})
	case api.PathRevision:
		v := r.URL.Query().Get("version")
		if s.old && (v == "" || v == "0") {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"error":{"type":"invalid_request_error","message":"version must be a positive version number"}}`))
			return
		}
		_ = json.NewEncoder(w).Encode(api.RevisionContent{Repo: "acme/api", Key: "a.md", Version: 3, Op: "put", Checksum: "sha256:3", Content: "v3"})
	default:
		http.NotFound(w, r)
	}
}

// TestNewestRevision: the newest revision is one request to a server that
// knows version 0, and still read (history, then the revision) from one
// that refuses it.
func TestNewestRevision(t *testing.T) {
	for _, c := range []struct {
		old      bool
		requests int
	}{{false, 1}, {true, 3}} {
		fake := &revisionServer{old: c.old}
		srv := httptest.NewServer(fake)
		cl, err := client.New(client.Options{BaseURL: srv.URL, Token: "t"})
		if err != nil {
			t.Fatal(err)
		}
		rev, err := New(cl, Local{}).Revision(t.Context(), "acme/api", "a.md", 0)
		srv.Close()
		if err != nil || rev.Version != 3 || rev.Content != "v3" {
			t.Errorf("old server %v: %+v, %v; want version 3, v3", c.old, rev, err)
		}
		if len(fake.requests) != c.requests {
			t.Errorf("old server %v: requests %q, want %d", c.old, fake.requests, c.requests)
		}
	}
}
