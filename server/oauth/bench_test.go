package oauth_test

import (
	"net/http"
	"testing"

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
