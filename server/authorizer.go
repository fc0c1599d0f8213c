package server

import (
	"context"
	"net/url"
	"time"
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
	// Sessions lists the subject's live OAuth sessions, and those ended
	// in the last EndedShownFor.
	Sessions(ctx context.Context, subject string) (live, ended []OAuthSession, err error)
	// RevokeSession ends one of the subject's sessions at once: its
	// refresh tokens and its access tokens (ErrNotFound when it is not
	// the subject's live session).
	RevokeSession(ctx context.Context, subject, id string) error
}

// EndedShownFor is how long an ended OAuth session is listed beside the
// live ones ("Your sessions", token list).
const EndedShownFor = 7 * 24 * time.Hour

// DeviceRequest is a device's pending request to sign in (RFC 8628), as
// the web UI's device page shows it once the person entered its user code.
type DeviceRequest struct {
	UserCode   string // as people read it, XXXX-XXXX
	ClientID   string
	ClientName string
	Resource   string
	ExpiresAt  time.Time
}

// DeviceAuthorizer is the device authorization grant as the web UI's
// device page uses it (server/oauth implements it). userCode is as the
// person typed it; a code that cannot be one is ErrInvalid, one that is
// not pending (unknown, decided, expired) ErrNotFound.
type DeviceAuthorizer interface {
	// Device returns the pending request of a user code.
	Device(ctx context.Context, userCode string) (DeviceRequest, error)
	// ApproveDevice records the consent of p (the signed-in person, with
	// the credential they signed in with): the device's next poll gets a
	// session of its own as p.
	ApproveDevice(ctx context.Context, userCode string, p Principal) error
	// DenyDevice records the person's refusal: the device's next poll is
	// told access_denied.
	DenyDevice(ctx context.Context, userCode string) error
}
