package httpapi_test

import (
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/auth"
	"github.com/teammem/teammem/testkit/proctest"
	"github.com/teammem/teammem/testkit/servertest"
)

// TestRevokedToken: a revoked token gets the usual 401 envelope on the
// API, and the server's 401 line says why; other tokens are unaffected.
func TestRevokedToken(t *testing.T) {
	var logs proctest.Buffer
	ts := newTestServer(t, servertest.Options{RevocationRefresh: time.Nanosecond, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	tok, id, err := (&auth.Issuer{Key: ts.Key}).IssueWithID("ana", []string{"acme/*:write"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	ts.Put("acme/api", map[string]string{"a.md": "1"}, nil, 200)
	if r := ts.Do(http.MethodGet, api.PathTeamMemory+"?repo=acme/api", tok, nil); r.Status != 200 {
		t.Fatalf("before the revocation: %d %s", r.Status, r.Body)
	}
	ts.Revoke(server.Revocation{TokenID: id})
	r := ts.Do(http.MethodGet, api.PathTeamMemory+"?repo=acme/api", tok, nil)
	if r.Status != 401 || r.Header.Get("WWW-Authenticate") == "" {
		t.Fatalf("revoked token: %d %v %s; want 401 with WWW-Authenticate", r.Status, r.Header, r.Body)
	}
	if e := r.ErrorBody(t); e.Code() != api.CodeUnauthenticated || !strings.Contains(e.Message, "revoked") {
		t.Errorf("envelope %+v; want unauthenticated saying revoked", e)
	}
	if !strings.Contains(logs.String(), `msg="request refused"`) || !strings.Contains(logs.String(), "revoked") ||
		!strings.Contains(logs.String(), "subject=ana") {
		t.Errorf("no 401 line giving the revocation as reason:\n%s", logs.String())
	}
	if strings.Contains(logs.String(), tok) {
		t.Error("the token was logged")
	}
	if r := ts.Do(http.MethodGet, api.PathTeamMemory+"?repo=acme/api", ts.Admin, nil); r.Status != 200 {
		t.Errorf("another token after the revocation: %d", r.Status)
	}
}

// TestRevokedStreamEnds: an open events stream of a revoked token ends
// within a heartbeat interval, and reconnecting gets a 401.
func TestRevokedStreamEnds(t *testing.T) {
	ts := newTestServer(t, servertest.Options{RevocationRefresh: time.Nanosecond, Heartbeat: 50 * time.Millisecond})
	tok, id, err := (&auth.Issuer{Key: ts.Key}).IssueWithID("ana", []string{"acme/*:read"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	keep := ts.openEvents(api.PathEvents+"?repo=acme/api", ts.Admin)
	c := ts.openEvents(api.PathEvents+"?repo=acme/api", tok)
	c.frame() // retry advice
	c.frame() // a heartbeat: the stream is live
	ts.Revoke(server.Revocation{TokenID: id})
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
	if r := ts.Do(http.MethodGet, api.PathEvents+"?repo=acme/api", tok, nil); r.Status != 401 {
		t.Errorf("reconnecting with the revoked token: %d; want 401", r.Status)
	}
	keep.frame() // the admin's stream is still live
	keep.frame()
}
