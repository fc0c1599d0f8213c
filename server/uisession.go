package server

import (
	"context"
	"fmt"
	"regexp"
	"time"
)

// EndedSession is a web UI session signed out before it expires: every
// server on the store refuses its cookie from then on, copies included.
// The record is kept until Expires (the cookie is refused after that
// anyway); At is when it was ended.
type EndedSession struct {
	ID      string // the session's id (the web UI derives it from the cookie's random nonce)
	Expires time.Time
	At      time.Time
}

// sessionIDPattern is the shape of a session id: URL-safe base64 of at
// most 96 bytes.
var sessionIDPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{16,128}$`)

// Check reports an id that is not a session id, or an expiry before the
// session ended.
func (s EndedSession) Check() error {
	if !sessionIDPattern.MatchString(s.ID) {
		return fmt.Errorf("%.40q is not a web UI session id", s.ID)
	}
	if s.Expires.Before(s.At) || s.At.IsZero() {
		return fmt.Errorf("session %.16s…: ended at %v, after its expiry %v", s.ID, s.At, s.Expires)
	}
	return nil
}

// SessionStore keeps the web UI's ended sessions in the store every
// replica shares, so a sign-out holds on every server at once (the cookie
// itself is sealed and carries the session; nothing else about a session
// is stored). Both stores implement it.
type SessionStore interface {
	// EndSession records s (after s.Check), and forgets the ended sessions
	// whose expiry is before s.At. Ending a session twice changes nothing.
	EndSession(ctx context.Context, s EndedSession) error
	// SessionEnded reports whether the session id was ended (and has not
	// yet expired and been forgotten).
	SessionEnded(ctx context.Context, id string) (bool, error)
}
