package server

import (
	"context"
	"fmt"
	"time"
)

// IssuedToken is the record kept of a token this server's signing key
// issued (`teammem-server token create`, the first start's admin.token), so
// that an administrator can list what exists and a revocation can name a
// token that was really issued. The token itself is never kept.
type IssuedToken struct {
	ID        string // the jti: 24 lowercase hex digits
	Subject   string
	Grants    []string
	IssuedAt  time.Time
	ExpiresAt time.Time
}

// CheckTokenID reports an id that is not one teammem's issuer makes (24
// lowercase hex digits), naming what was given.
func CheckTokenID(id string) error {
	if !recordIDPattern.MatchString(id) {
		return fmt.Errorf("%.40q is not a token id: an id is the 24 hex digits token create printed (see token list)", id)
	}
	return nil
}

// Check reports a record that names no valid id or subject, or whose times
// do not follow each other.
func (t IssuedToken) Check() error {
	if err := CheckTokenID(t.ID); err != nil {
		return err
	}
	if err := (Revocation{Subject: t.Subject, Before: t.IssuedAt}).Check(); err != nil {
		return err
	}
	if !t.ExpiresAt.After(t.IssuedAt) {
		return fmt.Errorf("token %s expires (%v) before it is issued (%v)", t.ID, t.ExpiresAt, t.IssuedAt)
	}
	return nil
}

// TokenRegistry records the tokens the server's key issued. Both stores
// implement it, and so do their command-line views (which work beside a
// running server).
type TokenRegistry interface {
	// RecordToken records t (after t.Check); recording an id again
	// changes nothing.
	RecordToken(ctx context.Context, t IssuedToken) error
	// IssuedTokens returns every record, oldest first.
	IssuedTokens(ctx context.Context) ([]IssuedToken, error)
}
