package server

import (
	"context"
	"time"
)

// Identity is a person as the organisation's identity provider vouches
// for them at sign-in or at a refresh: their subject (from a configured
// claim), name, and the grants the configured claim mapping gives them.
// RefreshToken is the provider's, for the next refresh ("" when it gave
// none); Expires is when the provider's tokens expire.
type Identity struct {
	Subject      string
	DisplayName  string
	Grants       []Grant
	RefreshToken string
	Expires      time.Time
}

// IdentityProvider signs people in with the organisation's OpenID Connect
// provider (server/signin implements it): the authorization code flow with
// PKCE, then refreshes that ask the provider again, so that a person's
// grants follow their groups. Errors of Exchange and Refresh wrap
// ErrUnauthenticated when the provider refuses (a bad code, a revoked
// refresh token, a token of another issuer or audience) and
// ErrUnavailable when it cannot be reached.
type IdentityProvider interface {
	// Name is the provider's name for the sign-in button.
	Name() string
	// AuthCodeURL is where the browser signs in: redirect is the server's
	// callback, state and nonce the values the callback must carry back,
	// challenge the PKCE S256 challenge.
	AuthCodeURL(redirect, state, nonce, challenge string) string
	// Exchange turns the callback's code into the person's identity,
	// checking the ID token's issuer, audience and nonce.
	Exchange(ctx context.Context, redirect, code, verifier, nonce string) (Identity, error)
	// Refresh asks the provider again with a refresh token. When the
	// provider answered the refresh but the identity could not be read
	// after it (its userinfo endpoint down), the error comes with an
	// Identity holding only the refresh token to keep: a provider that
	// rotates them has spent the one given.
	Refresh(ctx context.Context, refreshToken string) (Identity, error)
}
