package auth

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"math/big"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/teammem/teammem/server"
)

func TestOIDCGrantsFromClaims(t *testing.T) {
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	jwks := map[string]any{"keys": []map[string]string{{
		"kty": "RSA", "kid": "k1", "use": "sig",
		"n": base64.RawURLEncoding.EncodeToString(rsaKey.N.Bytes()),
		"e": base64.RawURLEncoding.EncodeToString(big.NewInt(int64(rsaKey.E)).Bytes()),
	}}}
	fetches := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fetches++
		json.NewEncoder(w).Encode(jwks)
	}))
	defer srv.Close()

	grant, err := ParseClaimGrant("repository:write")
	if err != nil {
		t.Fatal(err)
	}
	o := &OIDC{Issuer: "https://ci.example", Audience: "teammem-ci", JWKSURL: srv.URL, Grants: []ClaimGrant{grant}}
	v, _ := NewVerifier(newKey(t).Public(), VerifierOptions{OIDC: []*OIDC{o}})
	sign := func(kid string, claims jwt.MapClaims) string {
		tok := jwt.NewWithClaims(jwt.SigningMethodRS256, claims)
		tok.Header["kid"] = kid
		s, err := tok.SignedString(rsaKey)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	claims := func() jwt.MapClaims {
		return jwt.MapClaims{"iss": "https://ci.example", "aud": "teammem-ci", "sub": "repo:Acme/API:ref:main",
			"repository": "Acme/API", "exp": time.Now().Add(time.Hour).Unix()}
	}
	p, err := v.Authenticate(context.Background(), sign("k1", claims()))
	if err != nil {
		t.Fatal(err)
	}
	if !p.Can("acme/api", server.PermWrite) || p.Can("acme/web", server.PermRead) || p.Subject != "oidc:repo:Acme/API:ref:main" ||
		p.Credential != "oidc" || p.DisplayName != "" {
		t.Errorf("principal = %+v", p)
	}
	// The credential names the token's id; a name is shown as the
	// identity provider sent it, unless it holds what could hide or
	// reorder text.
	for name, want := range map[string]string{"Ana Silva": "Ana Silva", "Ana\u202eavliS": "", "  Zoë  ": "Zoë"} {
		named := claims()
		named["jti"], named["name"] = "run-42", name
		p, err := v.Authenticate(context.Background(), sign("k1", named))
		if err != nil || p.Credential != "oidc:run-42" || p.DisplayName != want {
			t.Errorf("name %q: principal %+v, %v; want credential oidc:run-42, display name %q", name, p, err, want)
		}
	}
	wrongAud := claims()
	wrongAud["aud"] = "other"
	if _, err := v.Authenticate(context.Background(), sign("k1", wrongAud)); err == nil {
		t.Error("wrong audience accepted")
	}
	if _, err := v.Authenticate(context.Background(), sign("unknown", claims())); err == nil {
		t.Error("unknown key id accepted")
	}
	if fetches > 2 {
		t.Errorf("JWKS fetched %d times; it should be cached", fetches)
	}
	if _, err := ParseClaimGrant("repository"); err == nil {
		t.Error("grant without permission accepted")
	}
}

func TestJWKPublicKeyTypes(t *testing.T) {
	ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	pt, _ := ec.PublicKey.Bytes()
	b64 := base64.RawURLEncoding.EncodeToString
	ed := newKey(t)
	good := []jwk{
		{Kty: "EC", Kid: "ec", Crv: "P-256", X: b64(pt[1:33]), Y: b64(pt[33:])},
		{Kty: "OKP", Kid: "ed", Crv: "Ed25519", X: b64(ed.Public().(ed25519.PublicKey))},
	}
	for _, k := range good {
		if _, err := k.publicKey(); err != nil {
			t.Errorf("%s: %v", k.Kid, err)
		}
	}
	bad := []jwk{
		{Kty: "EC", Kid: "short", Crv: "P-256", X: b64(pt[1:20]), Y: b64(pt[33:])},
		{Kty: "EC", Kid: "off-curve", Crv: "P-256", X: b64(pt[33:]), Y: b64(pt[1:33])},
		{Kty: "EC", Kid: "curve", Crv: "P-521", X: "AA", Y: "AA"},
		{Kty: "OKP", Kid: "x25519", Crv: "X25519", X: b64(make([]byte, 32))},
		{Kty: "RSA", Kid: "rsa", N: "!!", E: "AQAB"},
		{Kty: "oct", Kid: "hmac"},
	}
	for _, k := range bad {
		if _, err := k.publicKey(); err == nil {
			t.Errorf("%s accepted", k.Kid)
		}
	}
}

func TestOIDCJWKSOutageIsUnavailable(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "down", http.StatusBadGateway)
	}))
	defer srv.Close()
	rsaKey, _ := rsa.GenerateKey(rand.Reader, 2048)
	o := &OIDC{Issuer: "https://ci.example", Audience: "a", JWKSURL: srv.URL}
	v, _ := NewVerifier(newKey(t).Public(), VerifierOptions{OIDC: []*OIDC{o}})
	tok := jwt.NewWithClaims(jwt.SigningMethodRS256, jwt.MapClaims{"iss": "https://ci.example", "aud": "a", "sub": "x", "exp": time.Now().Add(time.Hour).Unix()})
	tok.Header["kid"] = "k"
	s, _ := tok.SignedString(rsaKey)
	_, err := v.Authenticate(context.Background(), s)
	if !errors.Is(err, server.ErrUnavailable) || errors.Is(err, server.ErrUnauthenticated) {
		t.Errorf("JWKS outage = %v; want ErrUnavailable", err)
	}
}
