package httpapi_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/internal/proctest"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/auth"
)

// revoke records a revocation in the test server's store.
func (ts *testServer) revoke(r server.Revocation) {
	ts.t.Helper()
	r.At = time.Now()
	if err := ts.store.(server.RevocationStore).Revoke(context.Background(), r); err != nil {
		ts.t.Fatal(err)
	}
}

// TestRevokedToken: a revoked token gets the usual 401 envelope on the
// API, and the server's 401 line says why; other tokens are unaffected.
func TestRevokedToken(t *testing.T) {
	var logs proctest.Buffer
	ts := newTestServer(t, serverOpts{revocationRefresh: time.Nanosecond, logger: slog.New(slog.NewTextHandler(&logs, nil))})
	tok, id, err := (&auth.Issuer{Key: ts.key}).IssueWithID("ana", []string{"acme/*:write"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	ts.put("acme/api", map[string]string{"a.md": "1"}, nil, 200)
	if r := ts.do(http.MethodGet, api.PathTeamMemory+"?repo=acme/api", tok, nil); r.status != 200 {
		t.Fatalf("before the revocation: %d %s", r.status, r.body)
	}
	ts.revoke(server.Revocation{TokenID: id})
	r := ts.do(http.MethodGet, api.PathTeamMemory+"?repo=acme/api", tok, nil)
	if r.status != 401 || r.header.Get("WWW-Authenticate") == "" {
		t.Fatalf("revoked token: %d %v %s; want 401 with WWW-Authenticate", r.status, r.header, r.body)
	}
	if e := r.errorBody(t); e.Code() != api.CodeUnauthenticated || !strings.Contains(e.Message, "revoked") {
		t.Errorf("envelope %+v; want unauthenticated saying revoked", e)
	}
	if !strings.Contains(logs.String(), `msg="request refused"`) || !strings.Contains(logs.String(), "revoked") ||
		!strings.Contains(logs.String(), "subject=ana") {
		t.Errorf("no 401 line giving the revocation as reason:\n%s", logs.String())
	}
	if strings.Contains(logs.String(), tok) {
		t.Error("the token was logged")
	}
	if r := ts.do(http.MethodGet, api.PathTeamMemory+"?repo=acme/api", ts.admin, nil); r.status != 200 {
		t.Errorf("another token after the revocation: %d", r.status)
	}
}

// TestRevokedUISession: a browser session holds its token, verified again
// on every request, so revoking the token signs the browser out.
func TestRevokedUISession(t *testing.T) {
	ts := newTestServer(t, serverOpts{revocationRefresh: time.Nanosecond})
	tok, _, err := (&auth.Issuer{Key: ts.key}).IssueWithID("ana", []string{"acme/*:read"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	b := ts.browser(t)
	b.signIn(tok)
	b.get("/ui/").must(t, http.StatusOK)
	ts.revoke(server.Revocation{Subject: "ana", Before: time.Now().Add(time.Second)})
	p := b.get("/ui/")
	if p.status != http.StatusSeeOther || p.header.Get("Location") != "/ui/login" {
		t.Fatalf("session of a revoked token: %d %s; want a redirect to sign in", p.status, p.header.Get("Location"))
	}
	if p := b.post("/ui/login", url.Values{"token": {tok}}); p.status != http.StatusUnauthorized || !strings.Contains(p.body, "revoked") {
		t.Errorf("signing in with the revoked token: %d; want 401 saying revoked:\n%s", p.status, p.body)
	}
}

// TestRevokedStreamEnds: an open events stream of a revoked token ends
// within a heartbeat interval, and reconnecting gets a 401.
func TestRevokedStreamEnds(t *testing.T) {
	ts := newTestServer(t, serverOpts{revocationRefresh: time.Nanosecond, heartbeat: 50 * time.Millisecond})
	tok, id, err := (&auth.Issuer{Key: ts.key}).IssueWithID("ana", []string{"acme/*:read"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	keep := ts.openEvents(api.PathEvents+"?repo=acme/api", ts.admin)
	c := ts.openEvents(api.PathEvents+"?repo=acme/api", tok)
	c.frame() // retry advice
	c.frame() // a heartbeat: the stream is live
	ts.revoke(server.Revocation{TokenID: id})
	done := make(chan error, 1)
	go func() { _, err := io.Copy(io.Discard, c.rd); done <- err }()
	select {
	case err := <-done:
		if err != nil && !errors.Is(err, io.EOF) {
			t.Fatalf("stream of the revoked token ended with %v; want a clean end", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the stream of a revoked token is still open")
	}
	if r := ts.do(http.MethodGet, api.PathEvents+"?repo=acme/api", tok, nil); r.status != 401 {
		t.Errorf("reconnecting with the revoked token: %d; want 401", r.status)
	}
	keep.frame() // the admin's stream is still live
	keep.frame()
}
