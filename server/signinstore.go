package server

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// SignIn is one sign-in of a person with the organisation's identity
// provider, kept in the store every replica shares: the provider's refresh
// token (sealed; SignIns seals and opens it), the grants the claim mapping
// gave at the provider's last answer, and when that was. The web session
// the sign-in started and every OAuth session consented from it (whose
// Parent is SignInCredential(ID)) share it, so the provider is asked once
// for all of them and its refresh token, which some providers rotate, is
// spent by one replica at a time.
type SignIn struct {
	ID      string // random, 24 lowercase hex digits
	Subject string
	Grants  []string
	// Sealed is the provider's refresh token sealed under the server's
	// secret; never the token itself.
	Sealed []byte
	// CheckedAt is when the provider last vouched for Subject and Grants.
	CheckedAt time.Time
	// WebExpires is when the web session the sign-in started ends (the
	// sign-out makes it the time of the sign-out).
	WebExpires time.Time
	CreatedAt  time.Time
}

// Check reports a sign-in without a valid id or subject, or with a grant
// that does not parse.
func (s SignIn) Check() error {
	if !recordIDPattern.MatchString(s.ID) {
		return fmt.Errorf("%.40q is not a sign-in id: %w", s.ID, ErrInvalid)
	}
	if err := CheckSubject(s.Subject); err != nil {
		return err
	}
	for _, g := range s.Grants {
		if _, err := ParseGrant(g); err != nil {
			return err
		}
	}
	return nil
}

// StoredGrants checks s before a store records it and gives its grants
// as the JSON array both stores keep.
func (s SignIn) StoredGrants() (string, error) {
	if err := s.Check(); err != nil {
		return "", err
	}
	return storedGrants(s.Grants)
}

// storedGrants is grants as the JSON array the stores keep.
func storedGrants(grants []string) (string, error) {
	b, err := json.Marshal(append([]string{}, grants...))
	return string(b), err
}

// SignInCredential is the credential a sign-in's principal names, and the
// Parent of the OAuth sessions consented from it.
func SignInCredential(id string) string { return CredentialOf("signin", id) }

// SignInOf is the sign-in a credential names, if it names one.
func SignInOf(credential string) (string, bool) {
	id, ok := strings.CutPrefix(credential, "signin:")
	return id, ok && recordIDPattern.MatchString(id)
}

// SignInChange is what a change of a sign-in (SignInStore.UpdateSignIn)
// keeps: the sign-in as it is to be stored, or, when Ended says why, its
// end.
type SignInChange struct {
	SignIn SignIn
	// Ended, when not "", deletes the sign-in and revokes the live OAuth
	// sessions consented from it, the audit log recording the server
	// ending each for this reason.
	Ended string
}

// SignInStore keeps the sign-ins with the identity provider in the store
// every replica shares. Both stores implement it; every method is safe for
// concurrent use.
type SignInStore interface {
	// StartSignIn records s (after s.Check), and forgets the sign-ins
	// whose web session ended before s.CreatedAt and from which no live
	// OAuth session descends.
	StartSignIn(ctx context.Context, s SignIn) error
	// SignIn returns the sign-in id, or ErrNotFound.
	SignIn(ctx context.Context, id string) (SignIn, error)
	// UpdateSignIn runs change on the sign-in id while every other
	// UpdateSignIn of the same id waits, on every replica of the store
	// (change may ask the provider, spending its refresh token). When
	// change fails nothing is written and its error is returned; otherwise
	// its answer is stored (Ended: the sign-in deleted and its OAuth
	// sessions revoked at now, their ids returned). ErrNotFound when the
	// sign-in is not (or no longer) there.
	UpdateSignIn(ctx context.Context, id string, now time.Time, change func(SignIn) (SignInChange, error)) (revoked []string, err error)
	// SignOutSignIn records that the sign-in's web session ended at now,
	// and forgets the sign-ins whose web session has ended and from which
	// no live OAuth session descends (this one among them). An unknown id
	// is no error.
	SignOutSignIn(ctx context.Context, id string, now time.Time) error
}
