package webui

import (
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/auth"
	"github.com/teammem/teammem/server/httpkit"
)

// maxLoginForm bounds the sign-in form's body.
const maxLoginForm = 16 << 10

// loginForm is what the sign-in page shows.
type loginForm struct{ Error, Next, Provider string }

// loginPage serves the sign-in form, or sends a signed-in browser on.
func (u *UI) loginPage(w http.ResponseWriter, r *http.Request) {
	next := r.URL.Query().Get("next")
	if _, err := u.openSession(r); err == nil || u.noAuth {
		http.Redirect(w, r, afterLogin(next), http.StatusSeeOther)
		return
	}
	if !safeNext(next) {
		next = ""
	}
	u.render(w, r, http.StatusOK, "login", &page{Title: "Sign in", Data: loginForm{Next: next, Provider: u.providerName()}})
}

// login verifies the pasted token and starts a session. The token is
// read from the POST body only, never echoed, logged or put in a URL; a
// refusal says why (expired, wrong issuer...) without it.
func (u *UI) login(w http.ResponseWriter, r *http.Request) {
	if u.noAuth {
		http.Redirect(w, r, prefix+"/", http.StatusSeeOther)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxLoginForm)
	if err := r.ParseForm(); err != nil {
		u.loginRefused(w, r, http.StatusBadRequest, "The form could not be read; paste the token again.")
		return
	}
	token := strings.TrimSpace(r.PostForm.Get("token"))
	if t, ok := auth.BearerToken(token); ok {
		token = t
	}
	if err := u.limiter.Allow("ui-login " + clientAddr(r)); err != nil {
		u.fail(w, r, err)
		return
	}
	switch {
	case token == "":
		u.loginRefused(w, r, http.StatusBadRequest, "Paste a teammem token.")
		return
	case len(token) > maxSessionToken:
		u.loginRefused(w, r, http.StatusBadRequest, "That token is too long for a browser session.")
		return
	}
	p, err := u.auth.Authenticate(r.Context(), token)
	if err != nil {
		f := httpkit.Translate(err)
		if f.Status != http.StatusUnauthorized {
			u.fail(w, r, err)
			return
		}
		u.metrics.AuthFailure()
		u.loginRefused(w, r, http.StatusUnauthorized, "That token was not accepted. "+f.Message)
		return
	}
	httpkit.InfoOf(r.Context()).Subject = p.Subject
	if _, err := u.sessions.start(w, r, methodToken, token); err != nil {
		u.fail(w, r, err)
		return
	}
	http.Redirect(w, r, afterLogin(r.PostForm.Get("next")), http.StatusSeeOther)
}

// providerName is the identity provider's name, "" without one.
func (u *UI) providerName() string {
	if u.idp == nil {
		return ""
	}
	return u.idp.Name()
}

func (u *UI) loginRefused(w http.ResponseWriter, r *http.Request, status int, msg string) {
	next := r.PostForm.Get("next")
	if !safeNext(next) {
		next = ""
	}
	u.render(w, r, status, "login", &page{Title: "Sign in", Data: loginForm{Error: msg, Next: next, Provider: u.providerName()}})
}

// logout ends the session: in the store every replica reads, so that a
// copy of the cookie is refused too, then in the browser. When the store
// cannot record it, the page says so and the browser stays signed in
// rather than being told it signed out.
func (u *UI) logout(w http.ResponseWriter, r *http.Request, pg *page) (string, error) {
	if err := u.checkForm(r); err != nil {
		return "", err
	}
	if sess := callerOf(r.Context()).sess; u.ended != nil {
		e := server.EndedSession{ID: u.sessions.id(sess), Expires: time.Unix(sess.Expires, 0), At: u.sessions.now()}
		if err := u.ended.EndSession(r.Context(), e); err != nil {
			return "", err
		}
		if sess.SignIn != "" && u.signins != nil {
			if err := u.signins.SignOut(r.Context(), sess.SignIn); err != nil {
				return "", err
			}
		}
	}
	u.sessions.end(w, r)
	http.Redirect(w, r, prefix+"/login", http.StatusSeeOther)
	return "", nil
}

// openSession returns the request's session, or errNoSession when its
// cookie is absent, forged, damaged, expired or signed out (on any server
// sharing the store).
func (u *UI) openSession(r *http.Request) (session, error) {
	sess, err := u.sessions.open(r)
	if err != nil || u.ended == nil {
		return sess, err
	}
	ended, err := u.ended.SessionEnded(r.Context(), u.sessions.id(sess))
	switch {
	case err != nil:
		return session{}, err
	case ended:
		return session{}, errNoSession
	}
	return sess, nil
}

// checkForm reads a small POST form and checks its CSRF token.
func (u *UI) checkForm(r *http.Request) error {
	r.Body = http.MaxBytesReader(nil, r.Body, maxLoginForm)
	if err := r.ParseForm(); err != nil {
		return errBadForm
	}
	if !u.sessions.checkCSRF(callerOf(r.Context()).sess, r.PostForm.Get("csrf")) {
		return errBadForm
	}
	return nil
}

// errBadForm is a form without this session's CSRF token, or unreadable.
var errBadForm = server.InvalidBody("The form was refused: it lacks this session's CSRF token. Reload the page and submit it again.")

// clientAddr is the peer's IP address (for limiting sign-in attempts).
func clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
