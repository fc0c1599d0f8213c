package auth

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/teammem/teammem/memcore/protocol"
	"github.com/teammem/teammem/server"
)

// OIDC trusts the tokens of one external issuer (a CI provider, say),
// verified with the keys of its JWKS URL, and maps claims to grants.
type OIDC struct {
	Issuer   string
	Audience string
	JWKSURL  string
	// Grants maps a claim to a permission: the claim's value, canonicalised
	// as a repository slug, is granted that permission. For example
	// {Claim: "repository", Perm: PermWrite} lets a CI job write exactly the
	// repository it runs for.
	Grants []ClaimGrant
	// HTTPClient fetches the JWKS; nil means a client with a 10 s timeout.
	HTTPClient *http.Client

	mu      sync.Mutex
	keys    map[string]crypto.PublicKey
	fetched time.Time
}

// ClaimGrant grants Perm on the repository named by a claim's value.
type ClaimGrant struct {
	Claim string
	Perm  server.Perm
}

// ParseClaimGrant parses "<claim>:<read|write|admin>".
func ParseClaimGrant(s string) (ClaimGrant, error) {
	i := strings.LastIndexByte(s, ':')
	if i <= 0 {
		return ClaimGrant{}, fmt.Errorf("parse OIDC grant %q: want <claim>:<read|write|admin>", s)
	}
	p, err := server.ParsePerm(s[i+1:])
	if err != nil {
		return ClaimGrant{}, fmt.Errorf("parse OIDC grant %q: %w", s, err)
	}
	return ClaimGrant{Claim: s[:i], Perm: p}, nil
}

// jwksRefresh is how long fetched keys are trusted before a refetch; an
// unknown key id triggers a refetch at most once a minute.
const (
	jwksRefresh    = time.Hour
	jwksMinRefetch = time.Minute
)

// verify checks an OIDC token and maps its claims to a principal.
func (o *OIDC) verify(ctx context.Context, token string, leeway time.Duration, now func() time.Time) (verified, error) {
	claims := jwt.MapClaims{}
	_, err := jwt.ParseWithClaims(token, claims, func(t *jwt.Token) (any, error) {
		kid, _ := t.Header["kid"].(string)
		return o.key(ctx, kid, now())
	},
		jwt.WithValidMethods([]string{"RS256", "RS384", "RS512", "ES256", "ES384", "EdDSA"}),
		jwt.WithExpirationRequired(),
		jwt.WithIssuer(o.Issuer),
		jwt.WithAudience(o.Audience),
		jwt.WithLeeway(leeway),
		jwt.WithTimeFunc(now),
	)
	if errors.Is(err, server.ErrUnavailable) { // the issuer's keys are unreachable: 503, not 401
		return verified{}, err
	}
	if err != nil {
		return verified{}, describe(err)
	}
	sub, _ := claims["sub"].(string)
	if sub == "" {
		return verified{}, unauthenticated("the token has no subject")
	}
	p := server.Principal{Subject: server.OIDCSubjectPrefix + sub}
	for _, g := range o.Grants {
		v, _ := claims[g.Claim].(string)
		slug, err := protocol.CanonicalSlug(v)
		if v == "" || err != nil {
			continue
		}
		grant, err := server.ParseGrant(slug + ":" + g.Perm.String())
		if err == nil {
			p.Grants = append(p.Grants, grant)
		}
	}
	exp, _ := claims.GetExpirationTime()
	p.Expires = exp.Time
	t := verified{p: p, exp: exp.Time}
	t.id, _ = claims["jti"].(string)
	t.p.Credential = server.CredentialOf("oidc", t.id)
	name, _ := claims["name"].(string)
	t.p.DisplayName = server.CleanDisplayName(name)
	if iat, _ := claims.GetIssuedAt(); iat != nil {
		t.issuedAt = iat.Time
	}
	return t, nil
}

// key returns the public key with id kid, fetching the JWKS when needed.
func (o *OIDC) key(ctx context.Context, kid string, now time.Time) (crypto.PublicKey, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	k, ok := o.keys[kid]
	stale := now.Sub(o.fetched) > jwksRefresh
	if ok && !stale {
		return k, nil
	}
	if !ok && !stale && now.Sub(o.fetched) < jwksMinRefetch {
		return nil, fmt.Errorf("unknown key id %q", kid)
	}
	keys, err := o.fetch(ctx)
	if err != nil {
		if ok { // keep using the key we had
			return k, nil
		}
		return nil, fmt.Errorf("%w: %w", server.ErrUnavailable, err)
	}
	o.keys, o.fetched = keys, now
	if k, ok = keys[kid]; !ok {
		return nil, fmt.Errorf("unknown key id %q", kid)
	}
	return k, nil
}

type jwk struct {
	Kty, Kid, Crv, N, E, X, Y, Use string
}

// fetch downloads and parses the JWKS.
func (o *OIDC) fetch(ctx context.Context) (map[string]crypto.PublicKey, error) {
	hc := o.HTTPClient
	if hc == nil {
		hc = &http.Client{Timeout: 10 * time.Second}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, o.JWKSURL, nil)
	if err != nil {
		return nil, fmt.Errorf("fetch JWKS: %w", err)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetch JWKS: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("fetch JWKS: status %d", resp.StatusCode)
	}
	var set struct{ Keys []jwk }
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&set); err != nil {
		return nil, fmt.Errorf("fetch JWKS: %w", err)
	}
	keys := make(map[string]crypto.PublicKey, len(set.Keys))
	for _, k := range set.Keys {
		if k.Use != "" && k.Use != "sig" {
			continue
		}
		if pk, err := k.publicKey(); err == nil {
			keys[k.Kid] = pk
		}
	}
	return keys, nil
}

func (k jwk) publicKey() (crypto.PublicKey, error) {
	switch k.Kty {
	case "RSA":
		n, err1 := b64int(k.N)
		e, err2 := b64int(k.E)
		if err1 != nil || err2 != nil || !e.IsInt64() {
			return nil, fmt.Errorf("bad RSA key %q", k.Kid)
		}
		return &rsa.PublicKey{N: n, E: int(e.Int64())}, nil
	case "EC":
		var c elliptic.Curve
		switch k.Crv {
		case "P-256":
			c = elliptic.P256()
		case "P-384":
			c = elliptic.P384()
		default:
			return nil, fmt.Errorf("unsupported curve %q", k.Crv)
		}
		size := (c.Params().BitSize + 7) / 8
		x, err1 := base64.RawURLEncoding.DecodeString(k.X)
		y, err2 := base64.RawURLEncoding.DecodeString(k.Y)
		if err1 != nil || err2 != nil || len(x) != size || len(y) != size {
			return nil, fmt.Errorf("bad EC key %q", k.Kid)
		}
		point := append(append([]byte{4}, x...), y...)
		pub, err := ecdsa.ParseUncompressedPublicKey(c, point)
		if err != nil {
			return nil, fmt.Errorf("bad EC key %q: %w", k.Kid, err)
		}
		return pub, nil
	case "OKP":
		x, err := base64.RawURLEncoding.DecodeString(k.X)
		if k.Crv != "Ed25519" || err != nil || len(x) != ed25519.PublicKeySize {
			return nil, fmt.Errorf("bad OKP key %q", k.Kid)
		}
		return ed25519.PublicKey(x), nil
	}
	return nil, fmt.Errorf("unsupported key type %q", k.Kty)
}

func b64int(s string) (*big.Int, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(b) == 0 {
		return nil, fmt.Errorf("bad base64url integer")
	}
	return new(big.Int).SetBytes(b), nil
}
