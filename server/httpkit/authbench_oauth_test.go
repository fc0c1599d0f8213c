package httpkit_test

import (
	"crypto/ed25519"
	"crypto/rand"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/auth"
	"github.com/teammem/teammem/server/httpkit"
)

// BenchmarkAuthenticateOAuth is BenchmarkAuthenticate with an OAuth access
// token for the resource the request is for (its audience checked too).
func BenchmarkAuthenticateOAuth(b *testing.B) {
	_, key, _ := ed25519.GenerateKey(rand.Reader)
	v, err := auth.NewVerifier(key.Public(), auth.VerifierOptions{})
	if err != nil {
		b.Fatal(err)
	}
	m := &httpkit.Middleware{Log: slog.New(slog.DiscardHandler), Meter: &meter{}, Auth: v, OAuth: true}
	h := httpkit.RequestIDs("bench")(m.Authenticate(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})))
	now := time.Now()
	token, _, err := (&auth.Issuer{Key: key}).IssueAccess(server.OAuthSession{ID: "0123456789abcdef01234567", Subject: "ann",
		Grants: []string{"acme/*:write"}, ClientID: "dcr_x", Resource: "http://example.com/mcp", ExpiresAt: now.Add(time.Hour)}, time.Hour)
	if err != nil {
		b.Fatal(err)
	}
	benchAuth(b, h, "/mcp", token)
}
