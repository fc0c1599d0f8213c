package webui

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/httpkit"
)

// caller is the signed-in browser of a request.
type caller struct {
	p    server.Principal
	sess session
	// signedInWith is the credential the session was started with (its
	// token's, "token:<id>"): what an OAuth client's session hangs on.
	signedInWith string
}

type callerKey struct{}

// callerOf returns the caller authenticate found (none outside its pages).
func callerOf(ctx context.Context) caller {
	c, _ := ctx.Value(callerKey{}).(caller)
	return c
}

// authenticate opens the session, works out its principal (verifying the
// token again, so an expired or revoked token ends the session) and
// applies the subject's rate limit, as httpkit's Authenticate does for
// bearer tokens.
func (u *UI) authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sess, err := u.openSession(r)
		if err != nil && u.noAuth {
			sess, err = u.sessions.start(w, r, methodNone, "")
		}
		var p server.Principal
		if err == nil {
			sess, err = u.recheck(w, r, sess)
		}
		if err == nil {
			p, err = u.principal(r.Context(), sess)
		}
		if err != nil {
			if !errors.Is(err, errNoSession) && !errors.Is(err, server.ErrUnauthenticated) {
				u.fail(w, r, err)
				return
			}
			u.sessions.end(w, r)
			if r.Method == http.MethodGet {
				http.Redirect(w, r, loginURL(r), http.StatusSeeOther)
				return
			}
			u.fail(w, r, fmt.Errorf("sign in again: %w", server.ErrUnauthenticated))
			return
		}
		// The session is the credential a write through the UI names (its
		// id, never its cookie): a sign-out ends it everywhere.
		signedInWith := p.Credential
		p.Credential = server.CredentialOf("session", u.sessions.id(sess))
		httpkit.InfoOf(r.Context()).Subject = p.Subject
		if err := u.limiter.Allow(p.Subject); err != nil {
			u.fail(w, r, err)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), callerKey{}, caller{p: p, sess: sess, signedInWith: signedInWith})))
	})
}

// principal is the caller a session stands for.
func (u *UI) principal(ctx context.Context, sess session) (server.Principal, error) {
	switch {
	case sess.Method == methodNone && u.noAuth:
		return httpkit.Anonymous, nil
	case sess.Method == methodOIDC && !u.noAuth && u.idp != nil:
		return oidcPrincipal(sess), nil
	case sess.Method == methodToken && !u.noAuth:
		p, err := u.auth.Authenticate(ctx, sess.Token)
		if err == nil && p.Resource != "" {
			return server.Principal{}, fmt.Errorf("an OAuth access token is for %s alone: %w", p.Resource, server.ErrUnauthenticated)
		}
		return p, err
	}
	return server.Principal{}, errNoSession
}
