package webui

import (
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/teammem/teammem/server/httpkit"
)

// contentSecurityPolicy allows nothing but the UI's own stylesheet and
// images, no script at all, forms posting only to the UI, and no framing.
const contentSecurityPolicy = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; " +
	"frame-ancestors 'none'; base-uri 'none'"

// Mount serves the web UI under /ui/ on r, and sends the server's address
// (/) there.
func (u *UI) Mount(r chi.Router) {
	toUI := func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, prefix+"/", http.StatusFound) // a person opening the server's address lands on the UI
	}
	r.Get("/", toUI)
	r.Head("/", toUI)
	r.Get(prefix, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, prefix+"/", http.StatusMovedPermanently)
	})
	r.Route(prefix, func(r chi.Router) {
		r.Use(securityHeaders)
		r.NotFound(func(w http.ResponseWriter, r *http.Request) { u.fail(w, r, httpkit.NotFound("no such page")) })
		r.MethodNotAllowed(func(w http.ResponseWriter, r *http.Request) { u.fail(w, r, httpkit.ErrMethodNotAllowed) })
		r.Get("/static/*", func(w http.ResponseWriter, r *http.Request) {
			if strings.HasSuffix(r.URL.Path, "/") { // a folder: no listing
				u.fail(w, r, httpkit.NotFound("no such page"))
				return
			}
			u.static.ServeHTTP(w, r)
		})
		r.Get("/login", u.loginPage)
		r.With(crossOriginProtection).Post("/login", u.login)
		r.Get(oidcStartPath, u.oidcStart)
		r.Get(oidcCallbackPath, u.oidcCallback)
		r.Group(func(r chi.Router) {
			r.Use(u.authenticate)
			r.Get("/", u.handle(u.repos))
			r.Get("/search", u.handle(u.searchAll))
			r.With(crossOriginProtection).Post("/logout", u.handle(u.logout))
			r.Get("/proposals", u.handle(u.proposalsPage))
			r.Get("/proposals/{id}", u.handle(u.proposalPage))
			r.With(crossOriginProtection).Post("/proposals/{id}", u.handle(u.decideProposal))
			r.Get("/r/*", u.handle(u.repoGet))
			r.With(crossOriginProtection).Post("/r/*", u.handle(u.repoPost))
			r.Get(consentPath, u.handle(u.consent))
			r.With(crossOriginProtection).Post(consentPath, u.handle(u.decide))
			r.Get(devicePath, u.handle(u.devicePage))
			r.With(crossOriginProtection).Post(devicePath, u.handle(u.deviceDecide))
			r.Get("/sessions", u.handle(u.sessionList))
			r.With(crossOriginProtection).Post("/sessions", u.handle(u.revokeSession))
		})
	})
}

// crossOriginProtection refuses cross-origin POSTs (Sec-Fetch-Site and
// Origin), a second guard besides each form's CSRF token; the sign-in form
// has only this one.
func crossOriginProtection(next http.Handler) http.Handler {
	return http.NewCrossOriginProtection().Handler(next)
}

// securityHeaders sets the security headers of every UI response.
func securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd.Set("Content-Security-Policy", contentSecurityPolicy)
		hd.Set("X-Frame-Options", "DENY")
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("Referrer-Policy", "same-origin")
		hd.Set("Cross-Origin-Opener-Policy", "same-origin")
		hd.Set("Cross-Origin-Resource-Policy", "same-origin")
		if !strings.HasPrefix(r.URL.Path, prefix+"/static/") {
			hd.Set("Cache-Control", "no-store")
		}
		next.ServeHTTP(w, r)
	})
}
