package webui_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/auth"
	"github.com/teammem/teammem/server/postgres"
	"github.com/teammem/teammem/testkit/pgtest"
	"github.com/teammem/teammem/testkit/servertest"
)

// sessionCookie is the browser's session cookie for ts.
func (b *browser) sessionCookie() *http.Cookie {
	b.t.Helper()
	u, err := url.Parse(b.ts.URL + "/ui/")
	if err != nil {
		b.t.Fatal(err)
	}
	for _, c := range b.client.Jar.Cookies(u) {
		if c.Name == "teammem_session" {
			return c
		}
	}
	b.t.Fatal("the browser holds no session cookie")
	return nil
}

// getWith opens path on the server at base with only the cookie c, as a
// copy of the cookie taken from the browser would.
func getWith(t *testing.T, base, path string, c *http.Cookie) page {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.AddCookie(&http.Cookie{Name: c.Name, Value: c.Value})
	resp, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return page{Status: resp.StatusCode, Header: resp.Header}
}

// signedOut fails unless the page is the redirect to the sign-in form.
func (p page) signedOut(t *testing.T, what string) {
	t.Helper()
	if p.Status != http.StatusSeeOther || p.Header.Get("Location") != "/ui/login" {
		t.Errorf("%s: %d %q; want a redirect to /ui/login", what, p.Status, p.Header.Get("Location"))
	}
}

// signOutEndsCopies signs in at a, copies the cookie, shows that the copy
// opens both servers, signs out at signOutAt and checks that the copy
// opens neither.
func signOutEndsCopies(t *testing.T, a, b, signOutAt *testServer) {
	br := a.browser(t)
	br.signIn(a.Admin)
	copied := br.sessionCookie()
	for _, s := range []*testServer{a, b} {
		getWith(t, s.URL, "/ui/", copied).must(t, http.StatusOK)
	}
	out := signOutAt.browser(t)
	out.client.Jar.SetCookies(mustURL(t, signOutAt.URL+"/ui/"), []*http.Cookie{{Name: copied.Name, Value: copied.Value, Path: "/ui/"}})
	home := out.get("/ui/").must(t, http.StatusOK)
	out.post("/ui/logout", url.Values{"csrf": {home.csrf(t)}}).must(t, http.StatusSeeOther)
	out.get("/ui/").signedOut(t, "the signed-out browser")
	for name, s := range map[string]*testServer{"the first server": a, "the second server": b} {
		getWith(t, s.URL, "/ui/", copied).signedOut(t, "a copy of the signed-out cookie on "+name)
		getWith(t, s.URL, "/ui/login", copied).must(t, http.StatusOK) // the sign-in form, not a loop back to /ui/
	}
	// Signing in again starts a new session, which works.
	again := a.browser(t)
	again.signIn(a.Admin)
	again.get("/ui/").must(t, http.StatusOK)
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// TestSignOutEndsCopiedSession: signing out ends the session on the
// server, so a copy of the cookie taken before it is refused, on the
// server that signed it out and on a second one sharing its store.
func TestSignOutEndsCopiedSession(t *testing.T) {
	a := newTestServer(t, servertest.Options{})
	b := &testServer{Server: a.Replica(t, servertest.Options{}), t: t}
	signOutEndsCopies(t, a, b, a)
}

// TestSignOutEndsCopiedSessionReplicas: two replicas, each with its own
// pool on one Postgres database; the sign-out at one holds at the other
// from its next page on.
func TestSignOutEndsCopiedSessionReplicas(t *testing.T) {
	dbURL := pgtest.URL(t)
	open := func() server.Store {
		db, err := postgres.Open(context.Background(), dbURL, postgres.Options{Migrate: true})
		if err != nil {
			t.Fatal(err)
		}
		return db
	}
	a := newTestServer(t, servertest.Options{Store: open()})
	b := &testServer{Server: a.Replica(t, servertest.Options{Store: open()}), t: t}
	signOutEndsCopies(t, a, b, b)
}

// TestRevokedTokenIDEndsUISession: token revoke --id ends the browser
// sessions signed in with that token (the token is verified again on
// every page), not those of the subject's other tokens.
func TestRevokedTokenIDEndsUISession(t *testing.T) {
	ts := newTestServer(t, servertest.Options{RevocationRefresh: time.Nanosecond})
	iss := &auth.Issuer{Key: ts.Key}
	revoked, rec, err := iss.IssueRecord("ana", []string{"acme/*:read"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	other, _, err := iss.IssueRecord("ana", []string{"acme/*:read"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	b1, b2 := ts.browser(t), ts.browser(t)
	b1.signIn(revoked)
	b2.signIn(other)
	ts.Revoke(server.Revocation{TokenID: rec.ID})
	b1.get("/ui/").signedOut(t, "the session of the revoked token")
	b2.get("/ui/").must(t, http.StatusOK)
}
