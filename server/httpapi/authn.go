package httpapi

import (
	"context"
	"errors"
	"net/http"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/auth"
	"github.com/teammem/teammem/server/httpkit"
)

// principal returns the authenticated caller.
func principal(ctx context.Context) server.Principal {
	return httpkit.InfoOf(ctx).Principal
}

// authenticate verifies the bearer token and applies the rate limit of its
// subject. The token itself is never logged or echoed.
func (h *handler) authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := httpkit.Anonymous
		if !h.noAuth {
			token, ok := auth.BearerToken(r.Header.Get("Authorization"))
			if !ok {
				h.writeError(w, r, &auth.AuthError{Reason: "send an Authorization: Bearer <token> header"})
				return
			}
			var err error
			if p, err = h.auth.Authenticate(r.Context(), token); err != nil {
				h.writeError(w, r, err)
				return
			}
		}
		info := httpkit.InfoOf(r.Context())
		info.Subject = p.Subject
		if err := h.limiter.Allow(p.Subject); err != nil {
			h.writeError(w, r, err)
			return
		}
		info.Principal = p
		next.ServeHTTP(w, r)
	})
}

// stillValid returns a check that re-verifies the bearer token of a
// long-lived request (an events stream, which may outlive the request's
// context): false once the token is revoked or has expired. A store that
// cannot be read does not end the stream.
func (h *handler) stillValid(r *http.Request) func() bool {
	if h.noAuth {
		return func() bool { return true }
	}
	token, _ := auth.BearerToken(r.Header.Get("Authorization"))
	return func() bool {
		_, err := h.auth.Authenticate(context.Background(), token)
		return !errors.Is(err, server.ErrUnauthenticated)
	}
}
