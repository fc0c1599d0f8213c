package httpkit

import (
	"context"
	"errors"
	"net/http"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/auth"
)

// Principal returns the caller that Authenticate verified; a request that
// did not pass it is nobody (the zero Principal), who may read nothing.
func Principal(ctx context.Context) server.Principal {
	return InfoOf(ctx).Principal
}

// Authenticate verifies the bearer token, applies the rate limit of its
// subject and records the caller for Principal and the access log. It runs
// inside RequestIDs. The token itself is never logged or echoed.
func (m *Middleware) Authenticate(next http.Handler) http.Handler {
	return m.authenticate(next, true)
}

// VerifyCaller is Authenticate without the rate limit, for a surface that
// takes its caller's tokens itself (/mcp takes one per tool call, which it
// refuses as a tool error past the limit).
func (m *Middleware) VerifyCaller(next http.Handler) http.Handler {
	return m.authenticate(next, false)
}

func (m *Middleware) authenticate(next http.Handler, limit bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := Anonymous
		if !m.NoAuth {
			token, ok := auth.BearerToken(r.Header.Get("Authorization"))
			if !ok {
				m.WriteError(w, r, &auth.AuthError{Reason: "send an Authorization: Bearer <token> header"})
				return
			}
			var err error
			if p, err = m.Auth.Authenticate(r.Context(), token); err == nil {
				err = m.checkResource(r, p.Resource)
			}
			if err != nil {
				m.WriteError(w, r, err)
				return
			}
		}
		info := InfoOf(r.Context())
		info.Subject = p.Subject
		if limit {
			if err := m.Limiter.Allow(p.Subject); err != nil {
				m.WriteError(w, r, err)
				return
			}
		}
		info.Principal = p
		next.ServeHTTP(w, r)
	})
}

// StillValid returns a check that re-verifies the bearer token of a
// long-lived request (an events stream, which may outlive the request's
// context): false once the token is revoked or has expired. A store that
// cannot be read does not end the stream.
func (m *Middleware) StillValid(r *http.Request) func() bool {
	if m.NoAuth {
		return func() bool { return true }
	}
	token, _ := auth.BearerToken(r.Header.Get("Authorization"))
	return func() bool {
		_, err := m.Auth.Authenticate(context.Background(), token)
		return !errors.Is(err, server.ErrUnauthenticated)
	}
}
