package server

import (
	"context"
	"net/url"
)

// ConsentRequest is an OAuth authorization request that checked out, as
// the consent page shows it: the client by name and id, where the answer
// goes, and the resource its tokens will be for. Params are the request's
// parameters, which the consent form carries back.
type ConsentRequest struct {
	ClientID    string
	ClientName  string
	RedirectURI string
	Resource    string
	Params      url.Values
}

// Authorizer is the OAuth authorization server as the web UI's consent
// and "Your sessions" pages use it (server/oauth implements it). base is
// the server's base URL as the browser reached it: the issuer. Errors of
// Consent wrap ErrInvalid with words for the person (an unknown client, a
// redirect URI not registered): such a request is never sent back to its
// redirect URI.
type Authorizer interface {
	// Consent checks an authorization request's parameters.
	Consent(ctx context.Context, base string, params url.Values) (ConsentRequest, error)
	// Approve records the person's consent and returns where to send the
	// browser: the redirect URI with a code, the state and the issuer.
	// p is the signed-in person, with the credential they signed in with.
	Approve(ctx context.Context, base string, params url.Values, p Principal) (string, error)
	// Deny returns the redirect URI with error=access_denied.
	Deny(ctx context.Context, base string, params url.Values) (string, error)
	// Sessions lists the subject's live OAuth sessions.
	Sessions(ctx context.Context, subject string) ([]OAuthSession, error)
	// RevokeSession ends one of the subject's sessions at once: its
	// refresh tokens and its access tokens (ErrNotFound when it is not
	// the subject's live session).
	RevokeSession(ctx context.Context, subject, id string) error
}
