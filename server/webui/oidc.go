package webui

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"html/template"
	"net/http"
	"time"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/httpkit"
)

// People sign in with the organisation's identity provider: the sign-in
// page's first button starts the authorization code flow (PKCE, state and
// nonce kept in a short sealed cookie), the callback records the sign-in
// (server.SignIns: the provider's refresh token stays in the store) and
// starts a session that holds the identity and the sign-in's id, and the
// provider is asked again every few minutes (SignIns's Recheck), so that a
// person leaving a group loses its grants.

// Paths of the OIDC sign-in.
const (
	oidcStartPath    = "/login/oidc"
	oidcCallbackPath = "/login/oidc/callback"
	oidcStateCookie  = "teammem_oidc"
	oidcStateTTL     = 10 * time.Minute
)

// oidcState is what the browser carries to the provider and back.
type oidcState struct {
	State, Nonce, Verifier, Next string
}

// oidcStart sends the browser to the provider.
func (u *UI) oidcStart(w http.ResponseWriter, r *http.Request) {
	if u.idp == nil || u.noAuth {
		u.fail(w, r, httpkit.NotFound("no identity provider is configured"))
		return
	}
	st := oidcState{State: random(), Nonce: random(), Verifier: random() + random(), Next: r.URL.Query().Get("next")}
	// The provider sends the browser back from its own site: the cookie is
	// Lax (a Strict one would not come along).
	if err := u.sessions.sealLax(w, r, oidcStateCookie, st, oidcStateTTL); err != nil {
		u.fail(w, r, err)
		return
	}
	sum := sha256.Sum256([]byte(st.Verifier))
	challenge := base64.RawURLEncoding.EncodeToString(sum[:])
	http.Redirect(w, r, u.idp.AuthCodeURL(u.callbackURL(r), st.State, st.Nonce, challenge), http.StatusFound)
}

func (u *UI) callbackURL(r *http.Request) string {
	return httpkit.BaseURL(r, u.publicURL) + prefix + oidcCallbackPath
}

// oidcCallback finishes the sign-in: the state must be the one this
// browser was sent with, the code is exchanged (the ID token's issuer,
// audience and nonce checked), and a session starts.
func (u *UI) oidcCallback(w http.ResponseWriter, r *http.Request) {
	if u.idp == nil || u.noAuth {
		u.fail(w, r, httpkit.NotFound("no identity provider is configured"))
		return
	}
	if err := u.limiter.Allow("ui-login " + clientAddr(r)); err != nil {
		u.fail(w, r, err)
		return
	}
	var st oidcState
	q := r.URL.Query()
	ok := u.sessions.unseal(r, oidcStateCookie, &st)
	http.SetCookie(w, laxCookie(r, oidcStateCookie, "", -1))
	switch {
	case !ok || st.State == "" || q.Get("state") != st.State:
		u.loginRefused(w, r, http.StatusBadRequest, "That sign-in did not start in this browser, or took too long. Try again.")
		return
	case q.Get("error") != "":
		u.loginRefused(w, r, http.StatusUnauthorized, "The identity provider did not sign you in ("+q.Get("error")+").")
		return
	}
	id, err := u.idp.Exchange(r.Context(), u.callbackURL(r), q.Get("code"), st.Verifier, st.Nonce)
	if err != nil {
		if errors.Is(err, server.ErrUnauthenticated) {
			u.metrics.AuthFailure()
			u.log.Warn("OIDC sign-in refused", "reason", err.Error(), "client", r.RemoteAddr)
			u.loginRefused(w, r, http.StatusUnauthorized, "The identity provider's answer was not accepted. Try again.")
			return
		}
		u.fail(w, r, err)
		return
	}
	httpkit.InfoOf(r.Context()).Subject = id.Subject
	si, err := u.signins.Start(r.Context(), id, u.sessions.now().Add(sessionTTL))
	if err != nil {
		u.fail(w, r, err)
		return
	}
	sess := session{Method: methodOIDC, Subject: id.Subject, Name: id.DisplayName, Grants: si.Grants,
		SignIn: si.ID, Checked: si.CheckedAt.Unix()}
	if _, err := u.sessions.begin(w, r, sess); err != nil {
		u.fail(w, r, err)
		return
	}
	// A page of ours moves on: the browser came from the provider's site,
	// and the new Strict cookie would not come along on a redirect.
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	continuePage.Execute(w, afterLogin(st.Next))
}

var continuePage = template.Must(template.New("c").Parse(`<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>teammem: signed in</title><meta http-equiv="refresh" content="0;url={{.}}"></head>
<body><p>Signed in. <a href="{{.}}">Continue</a></p></body></html>
`))

// recheck brings the session's identity up to date with its sign-in when
// it is older than the recheck interval (server.SignIns asks the provider
// when the sign-in's last answer is that old too), and seals it into the
// cookie. A refusal ends the session (it is then ErrUnauthenticated); a
// session of a sign-in kept in the cookie by an earlier version, with no
// sign-in id, is ended so the person signs in again.
func (u *UI) recheck(w http.ResponseWriter, r *http.Request, sess session) (session, error) {
	now := u.sessions.now()
	if sess.Method != methodOIDC || u.signins == nil || now.Sub(time.Unix(sess.Checked, 0)) < u.signins.Recheck() {
		return sess, nil
	}
	if sess.SignIn == "" {
		return sess, errNoSession
	}
	si, err := u.signins.Current(r.Context(), sess.SignIn)
	if err != nil {
		return sess, err
	}
	if si.Subject != sess.Subject {
		return sess, errNoSession
	}
	// The session is as fresh as the sign-in's last answer; while the
	// provider cannot be reached (the answer is older), it waits a whole
	// interval before asking again.
	sess.Grants, sess.Checked = si.Grants, si.CheckedAt.Unix()
	if now.Sub(si.CheckedAt) >= u.signins.Recheck() {
		sess.Checked = now.Unix()
	}
	return sess, u.sessions.renew(w, r, sess)
}

// oidcPrincipal is the caller an OIDC session stands for.
func oidcPrincipal(sess session) server.Principal {
	p := server.Principal{Subject: sess.Subject, DisplayName: sess.Name, Expires: time.Unix(sess.Expires, 0),
		Credential: server.SignInCredential(sess.SignIn)}
	for _, g := range sess.Grants {
		if grant, err := server.ParseGrant(g); err == nil {
			p.Grants = append(p.Grants, grant)
		}
	}
	return p
}

// random is 16 random bytes in base64url.
func random() string {
	b := make([]byte, 16)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// sealLax is seal for a cookie that comes back on a cross-site
// navigation (SameSite=Lax).
func (s *sessions) sealLax(w http.ResponseWriter, r *http.Request, name string, v any, ttl time.Duration) error {
	value, err := s.sealed(name, v)
	if err != nil {
		return err
	}
	http.SetCookie(w, laxCookie(r, name, value, int(ttl/time.Second)))
	return nil
}

func laxCookie(r *http.Request, name, value string, maxAge int) *http.Cookie {
	c := cookie(r, name, value, maxAge)
	c.SameSite = http.SameSiteLaxMode
	return c
}
