package oauth_test

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/teammem/teammem/testkit/servertest"
)

// BenchmarkSignIn is one whole sign-in of an MCP client over HTTP on the
// embedded store: the authorization request, the consent page, the
// consent, the code's exchange.
func BenchmarkSignIn(b *testing.B) {
	s := servertest.Start(b, servertest.Options{OAuth: true})
	client := register(b, s.URL, redirect)
	ann := newBrowser(b)
	ann.signIn(s.URL, s.Token("ann", "acme/*:write"))
	p := newPKCE("bench")
	b.ResetTimer()
	for range b.N {
		back := ann.consent(s.URL, authRequest(client, redirect, s.URL+"/mcp", "s", p), "allow")
		if tok := exchange(b, s.URL, client, redirect, back.Query().Get("code"), p.verifier); tok.Status != http.StatusOK {
			b.Fatalf("exchange: %+v", tok)
		}
	}
}

// BenchmarkDeviceSignIn is one whole device sign-in over HTTP on the
// embedded store: the device authorization, a poll before the answer,
// the device page, the person's answer, the poll that gets the tokens.
func BenchmarkDeviceSignIn(b *testing.B) {
	s := servertest.Start(b, servertest.Options{OAuth: true, OAuthDeviceInterval: time.Microsecond})
	client := registerDevice(b, s.URL)
	ann := newBrowser(b)
	ann.signIn(s.URL, s.Token("ann", "acme/*:write"))
	b.ResetTimer()
	for range b.N {
		d := startDevice(b, s.URL, url.Values{"client_id": {client}})
		if r := poll(b, s.URL, client, d.DeviceCode); r.Error != "authorization_pending" {
			b.Fatalf("poll: %+v", r)
		}
		if r := ann.answerDevice(s.URL, d.UserCode, "allow"); r.Status != http.StatusOK {
			b.Fatalf("allow: %d", r.Status)
		}
		if tok := poll(b, s.URL, client, d.DeviceCode); tok.Status != http.StatusOK {
			b.Fatalf("poll: %+v", tok)
		}
	}
}

// BenchmarkRefresh is one refresh over HTTP on the embedded store: the
// rotation of the refresh token and a new access token.
func BenchmarkRefresh(b *testing.B) {
	s := servertest.Start(b, servertest.Options{OAuth: true})
	client := register(b, s.URL, redirect)
	ann := newBrowser(b)
	ann.signIn(s.URL, s.Token("ann", "acme/*:write"))
	p := newPKCE("bench")
	back := ann.consent(s.URL, authRequest(client, redirect, s.URL+"/mcp", "s", p), "allow")
	tok := exchange(b, s.URL, client, redirect, back.Query().Get("code"), p.verifier)
	b.ResetTimer()
	for range b.N {
		if tok = refresh(b, s.URL, client, tok.RefreshToken); tok.Status != http.StatusOK {
			b.Fatalf("refresh: %+v", tok)
		}
	}
}

// BenchmarkOAuthRequest is router's BenchmarkAuthenticatedRequest with an
// OAuth access token: /mcp's initialize through the whole handler.
func BenchmarkOAuthRequest(b *testing.B) {
	s := servertest.Start(b, servertest.Options{OAuth: true})
	client := register(b, s.URL, redirect)
	ann := newBrowser(b)
	ann.signIn(s.URL, s.Token("ann", "acme/*:write"))
	p := newPKCE("bench")
	back := ann.consent(s.URL, authRequest(client, redirect, s.URL+"/mcp", "s", p), "allow")
	tok := exchange(b, s.URL, client, redirect, back.Query().Get("code"), p.verifier)
	b.ResetTimer()
	for range b.N {
		if st := mcpStatus(b, s.URL, tok.AccessToken); st != http.StatusOK {
			b.Fatalf("/mcp: %d", st)
		}
	}
}
