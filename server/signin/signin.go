// Package signin signs people in with the organisation's OpenID Connect
// provider (server.IdentityProvider): the authorization code flow with
// PKCE (coreos/go-oidc and x/oauth2, this package alone), the person's
// subject from a configured claim (email by default, sub when it is
// absent), and their grants from a mapping of claim values to grants,
// applied again at every refresh.
package signin

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"

	"github.com/teammem/teammem/server"
)

// Config configures the provider.
type Config struct {
	Issuer       string
	ClientID     string
	ClientSecret string // "" for a public client
	// Name is shown on the sign-in button (default: the issuer's host).
	Name string
	// SubjectClaim names the person's subject (default "email"; "sub"
	// when the claim is absent).
	SubjectClaim string
	// Map gives grants to the people whose claims hold a value.
	Map []ClaimGrant
	// Scopes beyond openid (default email, profile, offline_access).
	Scopes []string
	// HTTPClient talks to the provider (nil: a client with a 10 s timeout).
	HTTPClient *http.Client
}

// Provider is an OpenID Connect provider people sign in with.
type Provider struct {
	cfg      Config
	provider *oidc.Provider
	verifier *oidc.IDTokenVerifier
	oauth    oauth2.Config
}

var _ server.IdentityProvider = (*Provider)(nil)

// New discovers the provider at cfg.Issuer; an error means it could not
// be reached or its discovery document names another issuer.
func New(ctx context.Context, cfg Config) (*Provider, error) {
	if cfg.Issuer == "" || cfg.ClientID == "" {
		return nil, errors.New("sign-in: an issuer and a client id are required")
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: 10 * time.Second}
	}
	if cfg.SubjectClaim == "" {
		cfg.SubjectClaim = "email"
	}
	if len(cfg.Scopes) == 0 {
		cfg.Scopes = []string{"email", "profile", "offline_access"}
	}
	if cfg.Name == "" {
		if u, err := url.Parse(cfg.Issuer); err == nil {
			cfg.Name = u.Host
		}
	}
	p, err := oidc.NewProvider(oidc.ClientContext(ctx, cfg.HTTPClient), cfg.Issuer)
	if err != nil {
		return nil, fmt.Errorf("sign-in: discover %s: %w", cfg.Issuer, err)
	}
	return &Provider{cfg: cfg, provider: p,
		verifier: p.Verifier(&oidc.Config{ClientID: cfg.ClientID}),
		oauth: oauth2.Config{ClientID: cfg.ClientID, ClientSecret: cfg.ClientSecret, Endpoint: p.Endpoint(),
			Scopes: append([]string{oidc.ScopeOpenID}, cfg.Scopes...)}}, nil
}

// Name is the provider's name for the sign-in button.
func (p *Provider) Name() string { return p.cfg.Name }

// AuthCodeURL is where the browser signs in.
func (p *Provider) AuthCodeURL(redirect, state, nonce, challenge string) string {
	c := p.oauth
	c.RedirectURL = redirect
	// access_type=offline is Google's way to ask for a refresh token (it
	// refuses the offline_access scope); other providers ignore it.
	return c.AuthCodeURL(state, oidc.Nonce(nonce), oauth2.SetAuthURLParam("code_challenge", challenge),
		oauth2.SetAuthURLParam("code_challenge_method", "S256"), oauth2.AccessTypeOffline)
}

// Exchange turns the callback's code into the person's identity.
func (p *Provider) Exchange(ctx context.Context, redirect, code, verifier, nonce string) (server.Identity, error) {
	ctx = oidc.ClientContext(ctx, p.cfg.HTTPClient)
	c := p.oauth
	c.RedirectURL = redirect
	tok, err := c.Exchange(ctx, code, oauth2.VerifierOption(verifier))
	if err != nil {
		return server.Identity{}, refused("the provider refused the sign-in", err)
	}
	return p.identity(ctx, tok, nonce, true)
}

// Refresh asks the provider again: the person's claims as they are now.
func (p *Provider) Refresh(ctx context.Context, refreshToken string) (server.Identity, error) {
	if refreshToken == "" {
		return server.Identity{}, fmt.Errorf("sign-in: no refresh token: %w", server.ErrUnauthenticated)
	}
	ctx = oidc.ClientContext(ctx, p.cfg.HTTPClient)
	tok, err := p.oauth.TokenSource(ctx, &oauth2.Token{RefreshToken: refreshToken}).Token()
	if err != nil {
		return server.Identity{}, refused("the provider refused the refresh", err)
	}
	id, err := p.identity(ctx, tok, "", false)
	if id.RefreshToken = tok.RefreshToken; id.RefreshToken == "" { // the provider kept the token it was given
		id.RefreshToken = refreshToken
	}
	return id, err
}

// refused wraps a provider's refusal (an answer of 4xx) as
// ErrUnauthenticated, a failure to reach it or an answer of 5xx (the
// provider down, a proxy in front of it failing) as ErrUnavailable.
func refused(what string, err error) error {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) && (re.Response == nil || re.Response.StatusCode < 500) {
		return fmt.Errorf("sign-in: %s (%s): %w", what, re.ErrorCode, server.ErrUnauthenticated)
	}
	return fmt.Errorf("sign-in: %s: %w: %w", what, server.ErrUnavailable, err)
}

// identity verifies the token answer's ID token (issuer, audience,
// expiry, and the nonce at sign-in), reads the person's claims from it and
// from the userinfo endpoint, and maps them.
func (p *Provider) identity(ctx context.Context, tok *oauth2.Token, nonce string, needIDToken bool) (server.Identity, error) {
	claims := map[string]any{}
	raw, _ := tok.Extra("id_token").(string)
	var sub string
	switch {
	case raw != "":
		idt, err := p.verifier.Verify(ctx, raw)
		if err != nil {
			return server.Identity{}, fmt.Errorf("sign-in: the ID token is not valid here: %v: %w", err, server.ErrUnauthenticated)
		}
		if needIDToken && idt.Nonce != nonce {
			return server.Identity{}, fmt.Errorf("sign-in: the ID token's nonce is not this sign-in's: %w", server.ErrUnauthenticated)
		}
		if err := idt.Claims(&claims); err != nil {
			return server.Identity{}, fmt.Errorf("sign-in: read the ID token: %v: %w", err, server.ErrUnauthenticated)
		}
		sub = idt.Subject
	case needIDToken:
		return server.Identity{}, fmt.Errorf("sign-in: the provider answered no ID token: %w", server.ErrUnauthenticated)
	}
	if err := p.userinfo(ctx, tok, sub, claims); err != nil {
		return server.Identity{}, err
	}
	return p.mapClaims(claims, tok)
}

// userinfo adds the userinfo endpoint's claims (groups are often there
// alone) to claims, after checking they are the same person's.
func (p *Provider) userinfo(ctx context.Context, tok *oauth2.Token, sub string, claims map[string]any) error {
	if p.provider.UserInfoEndpoint() == "" {
		return nil
	}
	info, err := p.provider.UserInfo(ctx, oauth2.StaticTokenSource(tok))
	if err != nil {
		return refused("read the userinfo", err)
	}
	if sub != "" && info.Subject != sub {
		return fmt.Errorf("sign-in: the userinfo is another person's: %w", server.ErrUnauthenticated)
	}
	more := map[string]any{}
	if err := info.Claims(&more); err != nil {
		return fmt.Errorf("sign-in: read the userinfo: %w", err)
	}
	for k, v := range more {
		if k != "sub" {
			claims[k] = v
		}
	}
	return nil
}

// mapClaims is the identity the claims make: the subject claim (sub when
// it is absent), the name, the grants of the mapping.
func (p *Provider) mapClaims(claims map[string]any, tok *oauth2.Token) (server.Identity, error) {
	id := server.Identity{RefreshToken: tok.RefreshToken, Expires: tok.Expiry}
	subject, _ := claims[p.cfg.SubjectClaim].(string)
	if subject == "" {
		subject, _ = claims["sub"].(string)
	}
	if err := server.CheckSubject(subject); err != nil {
		return id, fmt.Errorf("sign-in: the provider's subject %.80q is not one teammem takes: %w", subject, server.ErrUnauthenticated)
	}
	id.Subject = strings.ToLower(subject)
	name, _ := claims["name"].(string)
	id.DisplayName = server.CleanDisplayName(name)
	for _, m := range p.cfg.Map {
		if slices.Contains(claimValues(claims[m.Claim]), m.Value) {
			id.Grants = append(id.Grants, m.Grant)
		}
	}
	return id, nil
}

// claimValues are a claim's values as strings: a string, each string of
// a list, a boolean or a number written out.
func claimValues(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case []any:
		var out []string
		for _, e := range v {
			out = append(out, claimValues(e)...)
		}
		return out
	case bool, float64:
		return []string{fmt.Sprint(v)}
	}
	return nil
}
