package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// OAuthClient is a client registered with the server's OAuth authorization
// server by Dynamic Client Registration (a client identified by a Client ID
// Metadata Document is fetched, never stored). Every client is public: it
// proves possession with PKCE, never with a secret.
type OAuthClient struct {
	ID           string // random, "dcr_" and 32 base64url characters
	Name         string
	RedirectURIs []string
	CreatedAt    time.Time
}

// StoredRedirectURIs checks c before a store registers it and gives its
// redirect URIs as the JSON array both stores keep (empty for a client of
// the device grant alone).
func (c OAuthClient) StoredRedirectURIs() (string, error) {
	if c.ID == "" {
		return "", fmt.Errorf("register OAuth client: an id is required: %w", ErrInvalid)
	}
	uris, err := json.Marshal(append([]string{}, c.RedirectURIs...))
	return string(uris), err
}

// OAuthSession is one sign-in of a person to one OAuth client: it starts as
// an authorization code the person consented to, and lives on as a family
// of refresh tokens, each used once. It dies when revoked, when a refresh
// token of its family is used twice (a stolen token replayed), when its
// code is presented twice, or when the credential the person signed in
// with (Parent) expires or is revoked.
type OAuthSession struct {
	ID          string // random, 24 lowercase hex digits
	Subject     string
	DisplayName string
	Grants      []string
	ClientID    string
	ClientName  string
	RedirectURI string
	// CodeChallenge is the PKCE S256 challenge of the authorization code.
	CodeChallenge string
	// Resource is the protected resource (RFC 8707) the session's access
	// tokens are for: their audience.
	Resource string
	// Parent is the credential the person was signed in with when
	// consenting ("token:<id>", say); ParentExpires is when it expires.
	Parent        string
	ParentExpires time.Time
	CreatedAt     time.Time
	ExpiresAt     time.Time
	LastUsedAt    time.Time
	// CodeExpires is when the unexchanged authorization code expires.
	CodeExpires time.Time
	// EndedAt is when an ended session ended; EndedWhy why, when the
	// server ended it ("" when a person did). Set by EndedOAuthSessions.
	EndedAt  time.Time
	EndedWhy string
}

// Errors of the OAuth store, beside ErrNotFound.
var (
	// ErrCodeReused is an authorization code presented a second time: the
	// session it started is revoked.
	ErrCodeReused = errors.New("the authorization code was already used")
	// ErrRefreshReused is a refresh token presented after it was rotated:
	// its whole family is revoked.
	ErrRefreshReused = errors.New("the refresh token was already used")
)

// CheckOAuthSessionID reports an id that is not an OAuth session's.
func CheckOAuthSessionID(id string) error {
	if !recordIDPattern.MatchString(id) {
		return fmt.Errorf("%.40q is not a session id: %w", id, ErrInvalid)
	}
	return nil
}

// StoredGrants checks s before a store records it and gives its grants
// as the JSON array both stores keep.
func (s OAuthSession) StoredGrants() (string, error) {
	if err := s.Check(); err != nil {
		return "", err
	}
	return storedGrants(s.Grants)
}

// Check reports a session that names no valid id, subject, client or
// redirect, holds no grant, or whose times do not follow each other.
func (s OAuthSession) Check() error {
	if err := CheckOAuthSessionID(s.ID); err != nil {
		return err
	}
	if err := CheckSubject(s.Subject); err != nil {
		return err
	}
	switch {
	case s.ClientID == "" || s.RedirectURI == "" || s.CodeChallenge == "" || s.Resource == "":
		return fmt.Errorf("OAuth session %s: a client, redirect URI, code challenge and resource are required: %w", s.ID, ErrInvalid)
	case len(s.Grants) == 0:
		return fmt.Errorf("OAuth session %s holds no grant: %w", s.ID, ErrInvalid)
	case !s.ExpiresAt.After(s.CreatedAt) || !s.CodeExpires.After(s.CreatedAt):
		return fmt.Errorf("OAuth session %s expires before it starts: %w", s.ID, ErrInvalid)
	}
	for _, g := range s.Grants {
		if _, err := ParseGrant(g); err != nil {
			return err
		}
	}
	return nil
}

// OAuthStore keeps the OAuth authorization server's state in the store
// every replica shares: registered clients, authorization codes and
// refresh-token families. Codes and refresh tokens are kept as SHA-256
// hashes (hex), never themselves. Both stores implement it; every method is
// safe for concurrent use, and the one-time uses (TakeCode, RotateRefresh)
// are atomic across replicas.
type OAuthStore interface {
	// RegisterClient records a client (ErrInvalid without an id; a client
	// of the device grant alone has no redirect URI).
	RegisterClient(ctx context.Context, c OAuthClient) error
	// OAuthClient returns a registered client, or ErrNotFound.
	OAuthClient(ctx context.Context, id string) (OAuthClient, error)
	// StartOAuthSession records a consented session and the hash of its
	// authorization code (after s.Check).
	StartOAuthSession(ctx context.Context, s OAuthSession, codeHash string) error
	// TakeCode exchanges the code with hash codeHash for its session and
	// records refreshHash as the session's first refresh token. A code
	// unknown or expired at now is ErrNotFound; one taken before is
	// ErrCodeReused, and its session is revoked (the session returned
	// then holds its ID alone).
	TakeCode(ctx context.Context, codeHash, refreshHash string, now time.Time) (OAuthSession, error)
	// RotateRefresh replaces the refresh token with hash oldHash by
	// newHash and returns its session. An unknown token, or one whose
	// session is revoked or expired at now, is ErrNotFound; a token rotated
	// before is ErrRefreshReused, and its session is revoked (the
	// session returned then holds its ID alone).
	RotateRefresh(ctx context.Context, oldHash, newHash string, now time.Time) (OAuthSession, error)
	// RefreshSession returns the session of the refresh token with hash
	// tokenHash without using it: ErrNotFound when the token is unknown or
	// used, or its session revoked or expired at now.
	RefreshSession(ctx context.Context, tokenHash string, now time.Time) (OAuthSession, error)
	// OAuthSessions returns the subject's live sessions at now (exchanged,
	// neither revoked nor expired), most recently used first; all subjects'
	// when subject is "".
	OAuthSessions(ctx context.Context, subject string, now time.Time) ([]OAuthSession, error)
	// EndedOAuthSessions returns the subject's sessions (all subjects'
	// when subject is "") that were exchanged and ended at since or later,
	// most recently ended first, 50 at most.
	EndedOAuthSessions(ctx context.Context, subject string, since time.Time) ([]OAuthSession, error)
	// EndOAuthSession ends the live session id for why, the audit log
	// recording the server ending it (no error when it is not live).
	EndOAuthSession(ctx context.Context, id, why string, now time.Time) error
	// RevokeOAuthSession revokes the session id of subject (any subject's
	// when subject is ""); ErrNotFound when there is no such live session.
	RevokeOAuthSession(ctx context.Context, subject, id string, now time.Time) error
}
