package httpapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/memcore/protocol"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/testkit/servertest"
)

func TestServerIdentity(t *testing.T) {
	ts := newTestServer(t, servertest.Options{})
	id := ts.Store.ServerID()
	if !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(id) {
		t.Fatalf("store ServerID = %q", id)
	}
	info := servertest.Decode[api.ServerInfo](t, ts.Do(http.MethodGet, api.PathServer, "", nil))
	if info.ServerID != id {
		t.Errorf("GET %s = %+v; want serverId %q", api.PathServer, info, id)
	}
	// Every answer names the server: successes, refusals, unknown paths.
	for _, c := range []struct{ method, path, token string }{
		{http.MethodGet, api.PathHealthz, ""},
		{http.MethodGet, api.PathTeamMemory + "?repo=acme/api", ts.Admin},
		{http.MethodGet, api.PathTeamMemory + "?repo=acme/api", ""},
		{http.MethodGet, "/no/such/path", ""},
	} {
		r := ts.Send(false, c.method, c.path, c.token, nil)
		if got := r.Header.Get(api.HeaderServerID); got != id {
			t.Errorf("%s %s (%d): %s = %q; want %q", c.method, c.path, r.Status, api.HeaderServerID, got, id)
		}
	}
}

func TestSeen(t *testing.T) {
	if server.MaxSeenEntries != api.MaxSeenEntries {
		t.Fatalf("server.MaxSeenEntries %d, api.MaxSeenEntries %d; want one bound", server.MaxSeenEntries, api.MaxSeenEntries)
	}
	ts := newTestServer(t, servertest.Options{})
	sum := func(c string) string { return protocol.EntryChecksum([]byte(c)) }
	ts.Put("acme/api", map[string]string{"a.md": "one", "b.md": "b"}, nil, http.StatusOK)
	ts.Put("acme/api", map[string]string{"a.md": "two"}, nil, http.StatusOK)
	ts.Put("acme/api", nil, []string{"b.md"}, http.StatusOK)
	body := func(entries map[string]string) []byte {
		b, _ := json.Marshal(api.SeenRequest{Entries: entries})
		return b
	}
	reader := ts.Token("ana", "acme/*:read")
	got := servertest.Decode[api.SeenResponse](t, ts.Do(http.MethodPost, api.PathSeen+"?repo=Acme/API", reader,
		body(map[string]string{"a.md": sum("one"), "b.md": sum("b"), "c.md": sum("one"), "x.md": sum("new")})))
	want := api.SeenResponse{Repo: "acme/api", Seen: map[string]int64{"a.md": 1, "b.md": 3}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("seen (-want +got):\n%s", diff)
	}
	if got := servertest.Decode[api.SeenResponse](t, ts.Do(http.MethodPost, api.PathSeen+"?repo=zeta/never", ts.Admin,
		body(map[string]string{"a.md": sum("one")}))); len(got.Seen) != 0 {
		t.Errorf("seen on a never-written repo = %+v; want none", got)
	}

	tooMany := map[string]string{}
	for i := range api.MaxSeenEntries + 1 {
		tooMany[fmt.Sprintf("k%d.md", i)] = sum("x")
	}
	tests := []struct {
		name, query, token string
		body               []byte
		status             int
	}{
		{"no grant", "repo=other/web", reader, body(map[string]string{"a.md": sum("x")}), http.StatusForbidden},
		{"no token", "repo=acme/api", "", body(nil), http.StatusUnauthorized},
		{"no repo", "", ts.Admin, body(nil), http.StatusBadRequest},
		{"not JSON", "repo=acme/api", ts.Admin, []byte("{entries"), http.StatusBadRequest},
		{"entries not an object", "repo=acme/api", ts.Admin, []byte(`{"entries":["a.md"]}`), http.StatusBadRequest},
		{"a checksum that is not one", "repo=acme/api", ts.Admin, body(map[string]string{"a.md": "sha256:xyz"}), http.StatusBadRequest},
		{"an invalid key", "repo=acme/api", ts.Admin, body(map[string]string{"../etc/passwd": sum("x")}), http.StatusBadRequest},
		{"too many entries", "repo=acme/api", ts.Admin, body(tooMany), http.StatusBadRequest},
		{"too large", "repo=acme/api", ts.Admin, []byte(`{"entries":{"a.md":"` + strings.Repeat("x", 3<<20) + `"}}`), http.StatusRequestEntityTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := ts.Do(http.MethodPost, api.PathSeen+"?"+tt.query, tt.token, tt.body)
			if r.Status != tt.status {
				t.Errorf("POST seen?%s = %d %s; want %d", tt.query, r.Status, r.Body, tt.status)
			}
			if r.Status != http.StatusRequestEntityTooLarge { // its envelope names a reason, not an error_code
				r.ErrorBody(t)
			}
		})
	}
}

func TestWhoami(t *testing.T) {
	ts := newTestServer(t, servertest.Options{})
	tok := ts.TokenFor("ci-acme-api", 48*time.Hour, "acme/api:write", "acme/*:read")
	got := servertest.Decode[api.Whoami](t, ts.Do(http.MethodGet, api.PathWhoami, tok, nil))
	if got.Subject != "ci-acme-api" || !slices.Equal(got.Grants, []string{"acme/api:write", "acme/*:read"}) {
		t.Errorf("whoami = %+v", got)
	}
	exp, err := time.Parse(time.RFC3339, got.ExpiresAt)
	if err != nil || exp.Before(time.Now().Add(47*time.Hour)) || exp.After(time.Now().Add(49*time.Hour)) {
		t.Errorf("whoami expiresAt = %q (%v); want about 48 h from now", got.ExpiresAt, err)
	}
	for name, tok := range map[string]string{"none": "", "expired": ts.ExpiredToken("ana", "acme/*:read"), "garbage": "not.a.jwt"} {
		if r := ts.Send(true, http.MethodGet, api.PathWhoami, tok, nil); r.Status != http.StatusUnauthorized {
			t.Errorf("whoami with %s token: %d; want 401", name, r.Status)
		}
	}
}
