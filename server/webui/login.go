package webui

import (
	"net"
	"net/http"
	"strings"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/auth"
	"github.com/teammem/teammem/server/httpkit"
)

// maxLoginForm bounds the sign-in form's body.
const maxLoginForm = 16 << 10

// loginForm is what the sign-in page shows.
type loginForm struct{ Error string }

// uiLoginPage serves the sign-in form, or sends a signed-in browser on.
func (h *UI) uiLoginPage(w http.ResponseWriter, r *http.Request) {
	if _, err := h.sessions.open(r); err == nil || h.noAuth {
		http.Redirect(w, r, uiPrefix+"/", http.StatusSeeOther)
		return
	}
	h.uiRender(w, r, http.StatusOK, "login", &page{Title: "Sign in", Data: loginForm{}})
}

// uiLogin verifies the pasted token and starts a session. The token is
// read from the POST body only, never echoed, logged or put in a URL; a
// refusal says why (expired, wrong issuer...) without it.
func (h *UI) uiLogin(w http.ResponseWriter, r *http.Request) {
	if h.noAuth {
		http.Redirect(w, r, uiPrefix+"/", http.StatusSeeOther)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxLoginForm)
	if err := r.ParseForm(); err != nil {
		h.uiLoginRefused(w, r, http.StatusBadRequest, "The form could not be read; paste the token again.")
		return
	}
	token := strings.TrimSpace(r.PostForm.Get("token"))
	if t, ok := auth.BearerToken(token); ok {
		token = t
	}
	if err := h.limiter.Allow("ui-login " + clientAddr(r)); err != nil {
		h.uiFail(w, r, err)
		return
	}
	switch {
	case token == "":
		h.uiLoginRefused(w, r, http.StatusBadRequest, "Paste a teammem token.")
		return
	case len(token) > maxSessionToken:
		h.uiLoginRefused(w, r, http.StatusBadRequest, "That token is too long for a browser session.")
		return
	}
	p, err := h.auth.Authenticate(r.Context(), token)
	if err != nil {
		f := httpkit.Translate(err)
		if f.Status != http.StatusUnauthorized {
			h.uiFail(w, r, err)
			return
		}
		h.metrics.AuthFailure()
		h.uiLoginRefused(w, r, http.StatusUnauthorized, "That token was not accepted. "+f.Message)
		return
	}
	httpkit.InfoOf(r.Context()).Subject = p.Subject
	if _, err := h.sessions.start(w, r, methodToken, token); err != nil {
		h.uiFail(w, r, err)
		return
	}
	http.Redirect(w, r, uiPrefix+"/", http.StatusSeeOther)
}

func (h *UI) uiLoginRefused(w http.ResponseWriter, r *http.Request, status int, msg string) {
	h.uiRender(w, r, status, "login", &page{Title: "Sign in", Data: loginForm{Error: msg}})
}

// uiLogout ends the session.
func (h *UI) uiLogout(w http.ResponseWriter, r *http.Request, pg *page) (string, error) {
	if err := h.checkForm(r); err != nil {
		return "", err
	}
	h.sessions.end(w, r)
	http.Redirect(w, r, uiPrefix+"/login", http.StatusSeeOther)
	return "", nil
}

// checkForm reads a small POST form and checks its CSRF token.
func (h *UI) checkForm(r *http.Request) error {
	r.Body = http.MaxBytesReader(nil, r.Body, maxLoginForm)
	if err := r.ParseForm(); err != nil {
		return errBadForm
	}
	if !h.sessions.checkCSRF(callerOf(r.Context()).sess, r.PostForm.Get("csrf")) {
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
