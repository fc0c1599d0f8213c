package oauth_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/testkit/servertest"
)

// TestAuthorizeRefusals: a client or redirect URI that cannot be trusted
// is refused on the spot, never redirected to; any other flaw goes back to
// the client as an error, without a code.
func TestAuthorizeRefusals(t *testing.T) {
	onBothStores(t, servertest.Options{}, func(t *testing.T, a, b *servertest.Server) {
		client := register(t, a.URL, redirect, "https://app.example.com/cb")
		p := newPKCE("q")
		ok := func() url.Values { return authRequest(client, redirect, a.URL+"/mcp", "s", p) }
		for name, redirectURI := range map[string]string{
			"unregistered":        "https://evil.example/cb",
			"off by a character":  redirect + "x",
			"trailing slash":      redirect + "/",
			"other port":          "http://127.0.0.1:33419/callback",
			"path traversal":      "http://127.0.0.1:33418/callback/../steal",
			"scheme-relative":     "//evil.example/cb",
			"userinfo host trick": "https://app.example.com@evil.example/cb",
			"missing":             "",
			"case changed":        "HTTP://127.0.0.1:33418/callback",
		} {
			q := ok()
			q.Set("redirect_uri", redirectURI)
			r := newBrowser(t).do(http.MethodGet, b.URL+"/oauth/authorize?"+q.Encode(), nil)
			if r.Status != http.StatusBadRequest || r.Header.Get("Location") != "" || strings.Contains(r.Body, "refresh") {
				t.Errorf("%s redirect URI: %d Location %q; want 400 and no redirect", name, r.Status, r.Header.Get("Location"))
			}
		}
		for name, clientID := range map[string]string{"unknown": "dcr_nobody", "empty": "",
			"metadata URL on loopback": "https://127.0.0.1:1/client.json"} {
			q := ok()
			q.Set("client_id", clientID)
			if r := newBrowser(t).do(http.MethodGet, b.URL+"/oauth/authorize?"+q.Encode(), nil); r.Status != http.StatusBadRequest || r.Header.Get("Location") != "" {
				t.Errorf("%s client: %d %q; want 400 and no redirect", name, r.Status, r.Header.Get("Location"))
			}
		}
		q := ok()
		q["redirect_uri"] = []string{redirect, "https://evil.example/cb"}
		if r := newBrowser(t).do(http.MethodGet, b.URL+"/oauth/authorize?"+q.Encode(), nil); r.Status != http.StatusBadRequest {
			t.Errorf("two redirect URIs: %d; want 400", r.Status)
		}
		for name, change := range map[string]func(url.Values){
			"missing state":       func(q url.Values) { q.Del("state") },
			"no PKCE":             func(q url.Values) { q.Del("code_challenge"); q.Del("code_challenge_method") },
			"plain PKCE":          func(q url.Values) { q.Set("code_challenge_method", "plain") },
			"short challenge":     func(q url.Values) { q.Set("code_challenge", "abc") },
			"token response type": func(q url.Values) { q.Set("response_type", "token") },
			"foreign resource":    func(q url.Values) { q.Set("resource", "https://other.example/mcp") },
		} {
			q := ok()
			change(q)
			r := newBrowser(t).do(http.MethodGet, b.URL+"/oauth/authorize?"+q.Encode(), nil)
			loc, _ := url.Parse(r.Header.Get("Location"))
			if r.Status != http.StatusFound || loc == nil || !strings.HasPrefix(loc.String(), redirect+"?") ||
				loc.Query().Get("error") == "" || loc.Query().Has("code") || loc.Query().Get("iss") != a.URL {
				t.Errorf("%s: %d %q; want a redirect to the client with an error and iss, no code", name, r.Status, r.Header.Get("Location"))
			}
		}
	})
}

// TestConsentRefusals: the consent page needs a signed-in session, and
// its form this session's CSRF token.
func TestConsentRefusals(t *testing.T) {
	onBothStores(t, servertest.Options{}, func(t *testing.T, a, b *servertest.Server) {
		client := register(t, a.URL, redirect)
		p := newPKCE("c")
		q := authRequest(client, redirect, a.URL+"/mcp", "s", p)
		stranger := newBrowser(t)
		r := stranger.do(http.MethodGet, b.URL+"/ui/oauth/consent?"+q.Encode(), nil)
		wantLogin := "/ui/login?next=" + url.QueryEscape("/ui/oauth/consent?"+q.Encode())
		if r.Status != http.StatusSeeOther || r.Header.Get("Location") != wantLogin {
			t.Fatalf("consent page signed out: %d %q; want the sign-in page, back here after", r.Status, r.Header.Get("Location"))
		}
		login := stranger.do(http.MethodGet, b.URL+r.Header.Get("Location"), nil)
		if !strings.Contains(login.Body, `name="next"`) {
			t.Errorf("the sign-in page drops next: %s", login.Body)
		}
		f := form(login.Body)
		f.Set("token", a.Token("ann", "acme/*:read"))
		if r := stranger.do(http.MethodPost, b.URL+"/ui/login", f); r.Header.Get("Location") != "/ui/oauth/consent?"+q.Encode() {
			t.Errorf("after sign-in: %q; want the consent page", r.Header.Get("Location"))
		}
		// A form posted without a session, and with another session's
		// CSRF token.
		post := url.Values{"decision": {"allow"}}
		for k, v := range q {
			post[k] = v
		}
		if r := newBrowser(t).do(http.MethodPost, b.URL+"/ui/oauth/consent", post); r.Status != http.StatusUnauthorized || r.Header.Get("Location") != "" {
			t.Errorf("consent without a session: %d %q; want 401", r.Status, r.Header.Get("Location"))
		}
		mallory := newBrowser(t)
		mallory.signIn(a.URL, a.Token("mallory", "acme/*:read"))
		foreign := form(mallory.do(http.MethodGet, a.URL+"/ui/sessions", nil).Body).Get("csrf")
		post.Set("csrf", foreign)
		if r := stranger.do(http.MethodPost, b.URL+"/ui/oauth/consent", post); r.Status != http.StatusBadRequest || r.Header.Get("Location") != "" {
			t.Errorf("consent with a foreign CSRF token: %d %q; want 400", r.Status, r.Header.Get("Location"))
		}
		// A consent form whose redirect URI was changed on the way.
		page := stranger.do(http.MethodGet, b.URL+"/ui/oauth/consent?"+q.Encode(), nil)
		if !strings.Contains(page.Body, "Test client") || !strings.Contains(page.Body, "acme/*:read") ||
			!strings.Contains(page.Header.Get("Content-Security-Policy"), "form-action 'self' http://127.0.0.1:33418;") {
			t.Errorf("consent page: %v %s", page.Header, page.Body)
		}
		tampered := form(page.Body)
		tampered.Set("redirect_uri", "https://evil.example/cb")
		tampered.Set("decision", "allow")
		if r := stranger.do(http.MethodPost, b.URL+"/ui/oauth/consent", tampered); r.Status != http.StatusBadRequest || r.Header.Get("Location") != "" {
			t.Errorf("consent with a changed redirect URI: %d %q; want 400", r.Status, r.Header.Get("Location"))
		}
		// Deny goes back with access_denied and no code.
		back := stranger.consent(b.URL, q, "deny")
		if back.Query().Get("error") != "access_denied" || back.Query().Has("code") {
			t.Errorf("deny: %s", back)
		}
	})
}

// TestTokenRefusals: a code is spent by its first use, right or wrong;
// a wrong verifier, redirect URI or client kills the session; a code used
// twice kills the tokens of the first use; refresh tokens die with the
// person's own sign-in.
func TestTokenRefusals(t *testing.T) {
	onBothStores(t, servertest.Options{}, func(t *testing.T, a, b *servertest.Server) {
		client := register(t, a.URL, redirect)
		other := register(t, a.URL, redirect)
		ann := newBrowser(t)
		ann.signIn(a.URL, a.Token("ann", "acme/*:write"))
		code := func(seed string) (string, pkce) {
			p := newPKCE(seed)
			return ann.consent(a.URL, authRequest(client, redirect, a.URL+"/mcp", "s", p), "allow").Query().Get("code"), p
		}
		for name, tc := range map[string]func(c string, p pkce) tokens{
			"wrong verifier": func(c string, p pkce) tokens {
				return exchange(t, b.URL, client, redirect, c, newPKCE("zz").verifier)
			},
			"missing verifier": func(c string, p pkce) tokens { return exchange(t, b.URL, client, redirect, c, "") },
			"other redirect":   func(c string, p pkce) tokens { return exchange(t, b.URL, client, redirect+"x", c, p.verifier) },
			"other client":     func(c string, p pkce) tokens { return exchange(t, b.URL, other, redirect, c, p.verifier) },
			"other resource": func(c string, p pkce) tokens {
				return tokenCall(t, b.URL, url.Values{"grant_type": {"authorization_code"}, "code": {c}, "client_id": {client},
					"redirect_uri": {redirect}, "code_verifier": {p.verifier}, "resource": {a.URL}})
			},
		} {
			c, p := code(name[:2])
			if got := tc(c, p); got.Error != "invalid_grant" && got.Error != "invalid_target" || got.AccessToken != "" {
				t.Errorf("%s: %+v; want invalid_grant", name, got)
			}
			if again := exchange(t, a.URL, client, redirect, c, p.verifier); again.Error != "invalid_grant" {
				t.Errorf("%s, then the right exchange: %+v; want invalid_grant (the code is spent)", name, again)
			}
		}
		c, p := code("re")
		first := exchange(t, a.URL, client, redirect, c, p.verifier)
		if first.Status != http.StatusOK {
			t.Fatalf("exchange: %+v", first)
		}
		if again := exchange(t, b.URL, client, redirect, c, p.verifier); again.Error != "invalid_grant" {
			t.Errorf("code reused: %+v; want invalid_grant", again)
		}
		if r := refresh(t, a.URL, client, first.RefreshToken); r.Error != "invalid_grant" {
			t.Errorf("refresh after the code's reuse: %+v; want invalid_grant (the session is revoked)", r)
		}
		waitRefused(t, func() int { return mcpStatus(t, a.URL, first.AccessToken) })

		for name, f := range map[string]url.Values{
			"no grant type":      {"code": {"x"}},
			"password grant":     {"grant_type": {"password"}, "username": {"ann"}},
			"unknown code":       {"grant_type": {"authorization_code"}, "code": {"nope"}, "client_id": {client}},
			"unknown refresh":    {"grant_type": {"refresh_token"}, "refresh_token": {"nope"}},
			"client_credentials": {"grant_type": {"client_credentials"}},
		} {
			if r := tokenCall(t, b.URL, f); r.Status != http.StatusBadRequest || r.AccessToken != "" {
				t.Errorf("%s: %+v; want 400", name, r)
			}
		}

		// The person's own token is revoked: the client's session dies at
		// its next refresh.
		bob := newBrowser(t)
		bobToken := a.Token("bob", "acme/*:write")
		bob.signIn(a.URL, bobToken)
		p = newPKCE("bb")
		back := bob.consent(a.URL, authRequest(client, redirect, a.URL+"/mcp", "s", p), "allow")
		tok := exchange(t, a.URL, client, redirect, back.Query().Get("code"), p.verifier)
		if tok.Status != http.StatusOK {
			t.Fatalf("bob's exchange: %+v", tok)
		}
		a.Revoke(server.Revocation{Subject: "bob", Before: timeNow().Add(1e9)})
		if r := refresh(t, b.URL, client, tok.RefreshToken); r.Error != "invalid_grant" {
			t.Errorf("refresh after the person's tokens were revoked: %+v; want invalid_grant", r)
		}
	})
}
