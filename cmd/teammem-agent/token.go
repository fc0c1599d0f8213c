package main

import (
	"context"
	"time"

	"github.com/teammem/teammem/client"
)

// currentToken is the token the session sends now: --token (or
// TEAMMEM_TOKEN, or agent.toml's), else what --token-file holds; "" when
// there is none.
func (s *session) currentToken() string {
	if s.flags.token != "" || s.flags.tokenFile == "" {
		return s.flags.token
	}
	tok, err := tokenFileSource(s.flags.tokenFile)(context.Background())
	if err != nil {
		return ""
	}
	return tok
}

// tokenExpiry says when the session's token expires, by its own claims
// (a JWT's exp, which the server requires of every token it takes); ok is
// false when it does not tell.
func (s *session) tokenExpiry() (time.Time, bool) {
	return client.TokenExpiry(s.currentToken())
}

// relogin says what gets the session a new token, for the warnings about
// its expiry: the command that saves one where it comes from.
func (s *session) relogin() string {
	switch {
	case s.flags.tokenFile != "":
		return "put a new token in " + s.flags.tokenFile
	case s.flags.token != "" && s.e != nil && s.e.Getenv("TEAMMEM_TOKEN") == s.flags.token:
		return "set TEAMMEM_TOKEN to a new token"
	}
	return "run teammem-agent login --server " + s.server
}

// expired reports whether the session's token says it has expired.
func (s *session) expired() bool {
	exp, ok := s.tokenExpiry()
	return ok && !exp.After(time.Now())
}
