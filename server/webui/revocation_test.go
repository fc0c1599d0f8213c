package webui_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/auth"
	"github.com/teammem/teammem/testkit/servertest"
)

// TestRevokedUISession: a browser session holds its token, verified again
// on every request, so revoking the token signs the browser out.
func TestRevokedUISession(t *testing.T) {
	ts := newTestServer(t, servertest.Options{RevocationRefresh: time.Nanosecond})
	tok, _, err := (&auth.Issuer{Key: ts.Key}).IssueWithID("ana", []string{"acme/*:read"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	b := ts.browser(t)
	b.signIn(tok)
	b.get("/ui/").must(t, http.StatusOK)
	ts.Revoke(server.Revocation{Subject: "ana", Before: time.Now().Add(time.Second)})
	p := b.get("/ui/")
	if p.Status != http.StatusSeeOther || p.Header.Get("Location") != "/ui/login" {
		t.Fatalf("session of a revoked token: %d %s; want a redirect to sign in", p.Status, p.Header.Get("Location"))
	}
	if p := b.post("/ui/login", url.Values{"token": {tok}}); p.Status != http.StatusUnauthorized || !strings.Contains(p.Body, "revoked") {
		t.Errorf("signing in with the revoked token: %d; want 401 saying revoked:\n%s", p.Status, p.Body)
	}
}
