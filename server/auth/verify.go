package auth

import (
	"context"
	"crypto"
	"crypto/ed25519"
	"crypto/sha256"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/teammem/teammem/server"
)

// MaxLeeway is the largest clock skew accepted on exp, nbf and iat.
const MaxLeeway = 60 * time.Second

// Verifier checks the server's own tokens: EdDSA only, exp required, the
// issuer and audience checked, a leeway of at most MaxLeeway. Verified
// tokens are cached (by SHA-256 of the token, never the token itself) until
// they expire, so that verification does not dominate request cost. With
// VerifierOptions.Revocations every verification, cached or not, is also
// checked against the recorded revocations (a list itself cached for at
// most VerifierOptions.RevocationRefresh).
// It implements server.Authenticator and is safe for concurrent use.
type Verifier struct {
	key     ed25519.PublicKey
	issuer  string
	leeway  time.Duration
	now     func() time.Time
	oidc    []*OIDC
	revoked *revocations // nil: no revocation checks
	cache   sync.Map     // [32]byte → verified
	entries int64
	mu      sync.Mutex
}

// verified is a token that passed verification.
type verified struct {
	p        server.Principal
	exp      time.Time
	id       string    // jti, "" when absent
	issuedAt time.Time // iat, zero when absent
}

// maxCached bounds the cache; when full it is cleared (tokens are few).
const maxCached = 50_000

// VerifierOptions configure a Verifier.
type VerifierOptions struct {
	Issuer string        // DefaultIssuer when empty
	Leeway time.Duration // capped at MaxLeeway; default 30 s
	Now    func() time.Time
	OIDC   []*OIDC // further trusted issuers
	// Revocations, when set, is checked on every verification: a token
	// whose id is revoked, or whose subject is revoked for tokens issued
	// before its iat, is refused.
	Revocations server.RevocationReader
	// RevocationRefresh bounds how stale the revocation list may be
	// (DefaultRevocationRefresh when 0).
	RevocationRefresh time.Duration
}

// NewVerifier returns a Verifier trusting pub (the server's key) and the
// OIDC issuers of opts.
func NewVerifier(pub crypto.PublicKey, opts VerifierOptions) (*Verifier, error) {
	k, ok := pub.(ed25519.PublicKey)
	if !ok {
		return nil, fmt.Errorf("new verifier: want an Ed25519 public key, got %T", pub)
	}
	v := &Verifier{key: k, issuer: opts.Issuer, leeway: opts.Leeway, now: opts.Now, oidc: opts.OIDC}
	if v.issuer == "" {
		v.issuer = DefaultIssuer
	}
	if v.leeway <= 0 {
		v.leeway = 30 * time.Second
	}
	if v.leeway > MaxLeeway {
		v.leeway = MaxLeeway
	}
	if v.now == nil {
		v.now = time.Now
	}
	if opts.Revocations != nil {
		v.revoked = newRevocations(opts.Revocations, opts.RevocationRefresh, v.now)
	}
	return v, nil
}

// Authenticate verifies token and returns its principal. Errors wrap
// server.ErrUnauthenticated with a reason fit for the caller.
func (v *Verifier) Authenticate(ctx context.Context, token string) (server.Principal, error) {
	if token == "" {
		return server.Principal{}, unauthenticated("no bearer token was sent")
	}
	sum := sha256.Sum256([]byte(token))
	now := v.now()
	t, ok := v.cached(sum, now)
	if !ok {
		var err error
		if t, err = v.verify(ctx, token); err != nil {
			return server.Principal{}, err
		}
		v.remember(sum, t)
	}
	if v.revoked != nil {
		if err := v.revoked.check(ctx, t); err != nil {
			return server.Principal{}, err
		}
	}
	return t.p, nil
}

// cached returns the cached verification of the token with hash sum while
// the token is still valid.
func (v *Verifier) cached(sum [32]byte, now time.Time) (verified, bool) {
	c, ok := v.cache.Load(sum)
	if !ok {
		return verified{}, false
	}
	if t := c.(verified); now.Before(t.exp.Add(v.leeway)) {
		return t, true
	}
	v.cache.Delete(sum)
	return verified{}, false
}

func (v *Verifier) remember(sum [32]byte, c verified) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.entries >= maxCached {
		v.cache.Clear()
		v.entries = 0
	}
	v.cache.Store(sum, c)
	v.entries++
}

// verify parses and checks a token without the cache.
func (v *Verifier) verify(ctx context.Context, token string) (verified, error) {
	iss, err := unverifiedIssuer(token)
	if err != nil {
		return verified{}, err
	}
	if iss != v.issuer {
		for _, o := range v.oidc {
			if o.Issuer == iss {
				return o.verify(ctx, token, v.leeway, v.now)
			}
		}
		return verified{}, unauthenticated("the token's issuer is not trusted by this server")
	}
	var claims AccessClaims
	_, err = jwt.ParseWithClaims(token, &claims, func(*jwt.Token) (any, error) { return v.key, nil },
		jwt.WithValidMethods([]string{jwt.SigningMethodEdDSA.Alg()}),
		jwt.WithExpirationRequired(),
		jwt.WithIssuer(v.issuer),
		jwt.WithLeeway(v.leeway),
		jwt.WithIssuedAt(),
		jwt.WithTimeFunc(v.now),
	)
	if err != nil {
		return verified{}, describe(err)
	}
	if claims.Subject == "" {
		return verified{}, unauthenticated("the token has no subject")
	}
	p, err := ownPrincipal(claims)
	if err != nil {
		return verified{}, err
	}
	p.Expires = claims.ExpiresAt.Time
	p.ProposeOnly = claims.ProposeOnly && p.Resource == ""
	t := verified{p: p, exp: claims.ExpiresAt.Time, id: claims.ID}
	if p.Resource != "" { // an access token is revoked with its session
		t.id = claims.Session
	}
	if claims.IssuedAt != nil {
		t.issuedAt = claims.IssuedAt.Time
	}
	return t, nil
}

// ownPrincipal is the caller a verified token of the server's key stands
// for: a token for audience "teammem" on every surface, an OAuth access
// token (RFC 8707) on its one resource alone.
func ownPrincipal(c AccessClaims) (server.Principal, error) {
	p := server.Principal{Subject: c.Subject}
	switch {
	case slices.Contains(c.Audience, Audience) && c.ClientID == "":
		p.Credential = server.CredentialOf("token", c.ID)
	case c.ClientID != "" && c.Session != "" && len(c.Audience) == 1 && checkResource(c.Audience[0]) == nil:
		p.Resource = c.Audience[0]
		p.Credential = server.CredentialOf("oauth", c.Session)
		p.DisplayName = server.CleanDisplayName(c.Name)
	default:
		return p, unauthenticated("the token's audience is not " + Audience)
	}
	for _, g := range c.Grants {
		grant, err := server.ParseGrant(g)
		if err != nil {
			return p, unauthenticated("the token holds a malformed grant")
		}
		p.Grants = append(p.Grants, grant)
	}
	return p, nil
}

// unverifiedIssuer reads iss without trusting it, only to pick the key.
func unverifiedIssuer(token string) (string, error) {
	var claims jwt.RegisteredClaims
	if _, _, err := jwt.NewParser().ParseUnverified(token, &claims); err != nil {
		return "", unauthenticated("the bearer token is not a well-formed JWT")
	}
	return claims.Issuer, nil
}

// describe maps golang-jwt's validation errors to a reason for the caller.
func describe(err error) error {
	switch {
	case errors.Is(err, jwt.ErrTokenExpired):
		return unauthenticated("the token has expired; create a new one")
	case errors.Is(err, jwt.ErrTokenRequiredClaimMissing):
		return unauthenticated("the token lacks a required claim (exp)")
	case errors.Is(err, jwt.ErrTokenInvalidAudience):
		return unauthenticated("the token's audience is not " + Audience)
	case errors.Is(err, jwt.ErrTokenInvalidIssuer):
		return unauthenticated("the token's issuer is not trusted by this server")
	case errors.Is(err, jwt.ErrTokenNotValidYet), errors.Is(err, jwt.ErrTokenUsedBeforeIssued):
		return unauthenticated("the token is not valid yet (check the clocks)")
	case errors.Is(err, jwt.ErrTokenSignatureInvalid), errors.Is(err, jwt.ErrTokenUnverifiable):
		return unauthenticated("the token's signature does not verify with this server's key")
	case errors.Is(err, jwt.ErrTokenMalformed):
		return unauthenticated("the bearer token is not a well-formed JWT")
	}
	return unauthenticated("the token is not valid")
}

// AuthError is an authentication failure with a reason for the caller.
// Subject is set when the token verified but is refused all the same
// (revoked), for the server's log line.
type AuthError struct{ Reason, Subject string }

func (e *AuthError) Error() string { return e.Reason }

// Unwrap makes errors.Is(err, server.ErrUnauthenticated) hold.
func (e *AuthError) Unwrap() error { return server.ErrUnauthenticated }

func unauthenticated(reason string) error { return &AuthError{Reason: reason} }

// BearerToken extracts the token of an "Authorization: Bearer <t>" header.
func BearerToken(header string) (string, bool) {
	const prefix = "bearer "
	if len(header) <= len(prefix) || !strings.EqualFold(header[:len(prefix)], prefix) {
		return "", false
	}
	return strings.TrimSpace(header[len(prefix):]), true
}
