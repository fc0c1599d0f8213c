package server

import (
	"context"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"
)

// Revocation withdraws tokens before they expire: either the one token
// whose id (jti) is TokenID, or every token of Subject issued (iat) before
// Before. Exactly one of TokenID and Subject is set. Revocations are only
// ever added; for one subject the latest Before holds.
type Revocation struct {
	TokenID string
	Subject string
	Before  time.Time
	At      time.Time // when it was recorded
}

// MaxRevocationField bounds a token id or subject given to a revocation.
const MaxRevocationField = 1024

// Check reports a revocation that names no token, or both kinds at once,
// or a field no token can hold.
func (r Revocation) Check() error {
	switch {
	case r.TokenID == "" && r.Subject == "":
		return errors.New("a revocation names a token id or a subject")
	case r.TokenID != "" && r.Subject != "":
		return errors.New("a revocation names a token id or a subject, not both")
	case r.Subject != "" && r.Before.IsZero():
		return errors.New("a subject's revocation needs the time its tokens were issued before")
	case r.TokenID != "" && !r.Before.IsZero():
		return errors.New("a token id's revocation takes no time")
	}
	for _, s := range []string{r.TokenID, r.Subject} {
		if len(s) > MaxRevocationField || !utf8.ValidString(s) || hasControl(s) {
			return fmt.Errorf("%.40q is not a token id or subject (at most %d bytes of printable UTF-8)", s, MaxRevocationField)
		}
	}
	return nil
}

func hasControl(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return true
		}
	}
	return false
}

// RevocationReader is a store's view of the recorded revocations, read by
// token verification (which caches them; see auth.VerifierOptions).
type RevocationReader interface {
	// Revocations returns every recorded revocation, one per token id and
	// one per subject (its latest Before).
	Revocations(ctx context.Context) ([]Revocation, error)
}

// RevocationStore records revocations as well as reading them. Both
// stores implement it; the server itself only reads (revocations are
// recorded by `teammem-server token revoke`).
type RevocationStore interface {
	RevocationReader
	// Revoke records r (after r.Check). Revoking a token id twice changes
	// nothing; a subject's revocation only ever moves its time later.
	Revoke(ctx context.Context, r Revocation) error
}
