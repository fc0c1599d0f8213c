package webui

import (
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/httpkit"
)

// consentPath is the consent page of an OAuth client's authorization
// request (the authorization server, server/oauth, sends the browser here).
const consentPath = "/oauth/consent"

// consentView is what the consent page shows.
type consentView struct {
	Request      server.ConsentRequest
	RedirectHost string
	Grants       []string
	Params       [][2]string // the request's parameters, carried back by the form
}

// consent shows the person which client asks, for which resource, with
// which grants; the form carries the request back with the session's CSRF
// token.
func (u *UI) consent(w http.ResponseWriter, r *http.Request, pg *page) (string, error) {
	if u.authz == nil {
		return "", httpkit.NotFound("this server is not an OAuth authorization server")
	}
	req, err := u.authz.Consent(r.Context(), httpkit.BaseURL(r, u.publicURL), r.URL.Query())
	if err != nil {
		return "", err
	}
	v := consentView{Request: req}
	if ru, err := url.Parse(req.RedirectURI); err == nil {
		v.RedirectHost = ru.Host
		if v.RedirectHost == "" {
			v.RedirectHost = ru.Scheme + ":"
		}
		// The form's answer redirects to the client: allow that target,
		// and no other, as the form's destination.
		w.Header().Set("Content-Security-Policy", strings.Replace(contentSecurityPolicy, "form-action 'self'",
			"form-action 'self' "+formTarget(ru), 1))
	}
	v.Grants = server.GrantStrings(callerOf(r.Context()).p.Grants)
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range req.Params {
			if !yield(k) {
				return
			}
		}
	}) {
		v.Params = append(v.Params, [2]string{k, req.Params.Get(k)})
	}
	pg.Title, pg.Data = "Allow "+req.ClientName+"?", v
	return "consent", nil
}

// formTarget is the CSP source of a redirect URI: its origin, or its
// scheme for an app's own scheme.
func formTarget(u *url.URL) string {
	if u.Scheme == "http" || u.Scheme == "https" {
		return u.Scheme + "://" + u.Host
	}
	return u.Scheme + ":"
}

// decide records the person's answer (allow or deny, with this session's
// CSRF token) and sends the browser back to the client.
func (u *UI) decide(w http.ResponseWriter, r *http.Request, pg *page) (string, error) {
	if u.authz == nil {
		return "", httpkit.NotFound("this server is not an OAuth authorization server")
	}
	if err := u.checkForm(r); err != nil {
		return "", err
	}
	params := url.Values{}
	for k, v := range r.PostForm {
		if k != "csrf" && k != "decision" {
			params[k] = v
		}
	}
	base := httpkit.BaseURL(r, u.publicURL)
	var to string
	var err error
	c := callerOf(r.Context())
	switch r.PostForm.Get("decision") {
	case "allow":
		p := c.p
		p.Credential = c.signedInWith
		to, err = u.authz.Approve(r.Context(), base, params, p)
	case "deny":
		to, err = u.authz.Deny(r.Context(), base, params)
	default:
		return "", errBadForm
	}
	if err != nil {
		return "", err
	}
	http.Redirect(w, r, to, http.StatusSeeOther)
	return "", nil
}

// sessionsView is the "Your sessions" page.
type sessionsView struct{ Sessions, Ended []server.OAuthSession }

// sessionList shows the person's OAuth sessions: the clients signed in as
// them, each revocable.
func (u *UI) sessionList(w http.ResponseWriter, r *http.Request, pg *page) (string, error) {
	if u.authz == nil {
		return "", httpkit.NotFound("this server is not an OAuth authorization server")
	}
	live, ended, err := u.authz.Sessions(r.Context(), callerOf(r.Context()).p.Subject)
	if err != nil {
		return "", err
	}
	pg.Title, pg.Data = "Your sessions", sessionsView{Sessions: live, Ended: ended}
	return "sessions", nil
}

// revokeSession ends one of the person's sessions.
func (u *UI) revokeSession(w http.ResponseWriter, r *http.Request, pg *page) (string, error) {
	if u.authz == nil {
		return "", httpkit.NotFound("this server is not an OAuth authorization server")
	}
	if err := u.checkForm(r); err != nil {
		return "", err
	}
	prov, err := httpkit.Claims(r, server.SurfaceWeb, false)
	if err != nil {
		return "", err
	}
	p := callerOf(r.Context()).p
	ctx := server.WithAuditActor(r.Context(), server.ActorOfCaller(p, prov))
	if err := u.authz.RevokeSession(ctx, p.Subject, r.PostForm.Get("id")); err != nil {
		return "", err
	}
	http.Redirect(w, r, prefix+"/sessions", http.StatusSeeOther)
	return "", nil
}
