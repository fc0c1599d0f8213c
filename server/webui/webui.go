// Package webui serves the web UI under /ui/: server-rendered pages
// (html/template, goldmark + bluemonday) over the Service, signed in with a
// teammem token held in a session cookie. No script runs in its pages.
package webui

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/httpkit"
	"github.com/teammem/teammem/server/metrics"
)

// uiPrefix is where the web UI is served.
const uiPrefix = "/ui"

//go:embed ui/templates/*.html ui/static/*
var uiFiles embed.FS

// uiContentSecurityPolicy allows nothing but the UI's own stylesheet and
// images, no script at all, forms posting only to the UI, and no framing.
const uiContentSecurityPolicy = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; " +
	"frame-ancestors 'none'; base-uri 'none'"

// Options configure the web UI.
type Options struct {
	Service *server.Service
	// Auth verifies the token a session was started with, on every page;
	// nil with NoAuth set makes every visitor the anonymous admin.
	Auth   server.Authenticator
	NoAuth bool
	Logger *slog.Logger
	// Metrics counts sign-in failures and restores (nil: a private set).
	Metrics *metrics.Metrics
	// Limiter is the per-subject rate limit the API shares (nil: none).
	Limiter *httpkit.Limiter
	// Timeout bounds a page's store work (default 30 s).
	Timeout time.Duration
	// Secret keys the session cookies; replicas that share it accept each
	// other's sessions. Nil takes a random secret (sessions then end with
	// the process).
	Secret []byte
}

// UI serves the web UI: server-rendered pages over the Service, signed in
// with a teammem token held in a session cookie.
type UI struct {
	svc      *server.Service
	auth     server.Authenticator
	noAuth   bool
	log      *slog.Logger
	metrics  *metrics.Metrics
	limiter  *httpkit.Limiter
	timeout  time.Duration
	pages    map[string]*template.Template
	sessions *sessions
	md       *markdown
	static   http.Handler
}

// New builds the web UI; an error means its embedded templates do not parse
// (a build defect) or no session secret could be made.
func New(o Options) (*UI, error) {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Metrics == nil {
		o.Metrics = metrics.New()
	}
	if o.Timeout <= 0 {
		o.Timeout = 30 * time.Second
	}
	s, err := newSessions(o.Secret)
	if err != nil {
		return nil, err
	}
	pages, err := parsePages()
	if err != nil {
		return nil, err
	}
	static, err := fs.Sub(uiFiles, "ui/static")
	if err != nil {
		return nil, err
	}
	return &UI{svc: o.Service, auth: o.Auth, noAuth: o.NoAuth, log: o.Logger, metrics: o.Metrics, limiter: o.Limiter,
		timeout: o.Timeout, pages: pages, sessions: s, md: newMarkdown(),
		static: http.StripPrefix(uiPrefix+"/static/", http.FileServerFS(static))}, nil
}

// parsePages parses each page template together with the layout.
func parsePages() (map[string]*template.Template, error) {
	layout, err := template.New("layout.html").Funcs(uiFuncs).ParseFS(uiFiles, "ui/templates/layout.html", "ui/templates/feed.html")
	if err != nil {
		return nil, fmt.Errorf("parse layout: %w", err)
	}
	names, err := fs.Glob(uiFiles, "ui/templates/*.html")
	if err != nil {
		return nil, err
	}
	pages := map[string]*template.Template{}
	for _, n := range names {
		name := strings.TrimSuffix(strings.TrimPrefix(n, "ui/templates/"), ".html")
		if name == "layout" || name == "feed" {
			continue
		}
		t, err := template.Must(layout.Clone()).ParseFS(uiFiles, n)
		if err != nil {
			return nil, fmt.Errorf("parse %s: %w", n, err)
		}
		pages[name] = t
	}
	return pages, nil
}

// Mount serves the web UI under /ui/ on r, and sends the server's address
// (/) there.
func (h *UI) Mount(r chi.Router) {
	toUI := func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, uiPrefix+"/", http.StatusFound) // a person opening the server's address lands on the UI
	}
	r.Get("/", toUI)
	r.Head("/", toUI)
	r.Get(uiPrefix, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, uiPrefix+"/", http.StatusMovedPermanently)
	})
	r.Route(uiPrefix, func(r chi.Router) {
		r.Use(uiHeaders)
		r.NotFound(func(w http.ResponseWriter, r *http.Request) { h.uiFail(w, r, httpkit.NotFound("no such page")) })
		r.MethodNotAllowed(func(w http.ResponseWriter, r *http.Request) { h.uiFail(w, r, httpkit.ErrMethodNotAllowed) })
		r.Get("/static/*", func(w http.ResponseWriter, r *http.Request) {
			if strings.HasSuffix(r.URL.Path, "/") { // a folder: no listing
				h.uiFail(w, r, httpkit.NotFound("no such page"))
				return
			}
			h.static.ServeHTTP(w, r)
		})
		r.Get("/login", h.uiLoginPage)
		r.With(crossOriginProtection).Post("/login", h.uiLogin)
		r.Group(func(r chi.Router) {
			r.Use(h.uiAuthenticate)
			r.Get("/", h.uiPage(h.uiRepos))
			r.With(crossOriginProtection).Post("/logout", h.uiPage(h.uiLogout))
			r.Get("/r/*", h.uiPage(h.uiRepoGet))
			r.With(crossOriginProtection).Post("/r/*", h.uiPage(h.uiRepoPost))
		})
	})
}

// crossOriginProtection refuses cross-origin POSTs (Sec-Fetch-Site and
// Origin), a second guard besides each form's CSRF token; the sign-in form
// has only this one.
func crossOriginProtection(next http.Handler) http.Handler {
	return http.NewCrossOriginProtection().Handler(next)
}

// uiHeaders sets the security headers of every UI response.
func uiHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd.Set("Content-Security-Policy", uiContentSecurityPolicy)
		hd.Set("X-Frame-Options", "DENY")
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("Referrer-Policy", "same-origin")
		hd.Set("Cross-Origin-Opener-Policy", "same-origin")
		hd.Set("Cross-Origin-Resource-Policy", "same-origin")
		if !strings.HasPrefix(r.URL.Path, uiPrefix+"/static/") {
			hd.Set("Cache-Control", "no-store")
		}
		next.ServeHTTP(w, r)
	})
}

// uiCaller is the signed-in browser of a request.
type uiCaller struct {
	p    server.Principal
	sess uiSession
}

type uiCallerKey struct{}

func callerOf(ctx context.Context) uiCaller {
	c, _ := ctx.Value(uiCallerKey{}).(uiCaller)
	return c
}

// uiAuthenticate opens the session, works out its principal (verifying the
// token again, so an expired or revoked token ends the session) and
// applies the subject's rate limit, as the API does for bearer tokens.
func (h *UI) uiAuthenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sess, err := h.sessions.open(r)
		if err != nil && h.noAuth {
			sess, err = h.sessions.start(w, r, methodNone, "")
		}
		var p server.Principal
		if err == nil {
			p, err = h.uiPrincipal(r.Context(), sess)
		}
		if err != nil {
			if !errors.Is(err, errNoSession) && !errors.Is(err, server.ErrUnauthenticated) {
				h.uiFail(w, r, err)
				return
			}
			h.sessions.end(w, r)
			if r.Method == http.MethodGet {
				http.Redirect(w, r, uiPrefix+"/login", http.StatusSeeOther)
				return
			}
			h.uiFail(w, r, fmt.Errorf("sign in again: %w", server.ErrUnauthenticated))
			return
		}
		httpkit.InfoOf(r.Context()).Subject = p.Subject
		if err := h.limiter.Allow(p.Subject); err != nil {
			h.uiFail(w, r, err)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), uiCallerKey{}, uiCaller{p: p, sess: sess})))
	})
}

// uiPrincipal is the caller a session stands for.
func (h *UI) uiPrincipal(ctx context.Context, sess uiSession) (server.Principal, error) {
	switch {
	case sess.Method == methodNone && h.noAuth:
		return httpkit.Anonymous, nil
	case sess.Method == methodToken && !h.noAuth:
		return h.auth.Authenticate(ctx, sess.Token)
	}
	return server.Principal{}, errNoSession
}

// page is what every template gets.
type page struct {
	Title   string
	Subject string // "" when signed out
	CSRF    string
	NoAuth  bool
	Repo    string // the repository the page is about, for the breadcrumbs
	Data    any
}

// uiPage adapts an error-returning UI handler that fills a page: the
// handler returns the template name and the page, or an error, which
// becomes an error page.
func (h *UI) uiPage(fn func(w http.ResponseWriter, r *http.Request, pg *page) (string, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), h.timeout)
		defer cancel()
		r = r.WithContext(ctx)
		c := callerOf(ctx)
		pg := &page{Subject: c.p.Subject, CSRF: h.sessions.csrfToken(c.sess), NoAuth: h.noAuth}
		name, err := fn(w, r, pg)
		if err != nil {
			h.uiFailIn(w, r, err, pg.Repo)
			return
		}
		if name != "" {
			h.uiRender(w, r, http.StatusOK, name, pg)
		}
	}
}

// uiRender executes a page template into a buffer, then writes it.
func (h *UI) uiRender(w http.ResponseWriter, r *http.Request, status int, name string, pg *page) {
	var buf bytes.Buffer
	t := h.pages[name]
	if t == nil {
		h.log.Error("no such UI template", "template", name)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	if err := t.ExecuteTemplate(&buf, "layout.html", pg); err != nil {
		h.log.LogAttrs(r.Context(), slog.LevelError, "render page", slog.String("request_id", httpkit.RequestID(r.Context())),
			slog.String("template", name), slog.String("error", err.Error()))
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", "text/html; charset=utf-8")
	hd.Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// uiError is what the error page shows.
type uiError struct {
	Status    int
	Heading   string
	Message   string
	RequestID string
}

// uiFail renders err as an error page, with the status the API's one table
// gives it. A refused repository reads the same whether or not it exists.
func (h *UI) uiFail(w http.ResponseWriter, r *http.Request, err error) {
	h.uiFailIn(w, r, err, "")
}

// uiFailIn is uiFail on a page of repo: a missing entry or page keeps the
// repository's breadcrumb and search box (the caller could read the
// repository to get that far); a refusal does not.
func (h *UI) uiFailIn(w http.ResponseWriter, r *http.Request, err error, repo string) {
	f := httpkit.Translate(err)
	if f.Status >= 500 {
		h.log.LogAttrs(r.Context(), slog.LevelError, "request failed", slog.String("request_id", httpkit.RequestID(r.Context())),
			slog.String("route", httpkit.RoutePattern(r)), slog.String("error", err.Error()))
	}
	if f.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(f.RetryAfter))
	}
	e := uiError{Status: f.Status, Heading: http.StatusText(f.Status), Message: f.Message}
	switch {
	case f.Status == http.StatusUnauthorized:
		e.Heading, e.Message = "Signed out", "Your session has ended. Sign in again."
	case f.Status == http.StatusForbidden:
		e.Heading, e.Message = "No access", "This repository does not exist or your sign-in has no grant for it."
	case f.Status == http.StatusNotFound:
		e.Heading, e.Message = "Not found", "There is nothing here."
	case f.Status == http.StatusPreconditionFailed:
		f.Status = http.StatusConflict
		e.Heading, e.Message = "Changed meanwhile", "The repository changed since this page was loaded. Reload it and try again."
	case f.Status >= 500:
		e.RequestID = httpkit.RequestID(r.Context())
	}
	e.Status = f.Status
	if f.Status == httpkit.StatusClientClosed {
		return
	}
	c := callerOf(r.Context())
	pg := &page{Title: e.Heading, Subject: c.p.Subject, NoAuth: h.noAuth, Data: e}
	if f.Status == http.StatusNotFound {
		pg.Repo = repo
	}
	if c.sess.Nonce != "" {
		pg.CSRF = h.sessions.csrfToken(c.sess)
	}
	h.uiRender(w, r, f.Status, "error", pg)
}

// uiFuncs are the templates' helpers.
var uiFuncs = template.FuncMap{
	"repoURL":  repoURL,
	"entryURL": entryURL,
	"diffURL":  diffURL,
	"bytes":    humanBytes,
	"ago":      ago,
	"when":     func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05 UTC") },
	"iso":      func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
	"feed":     newFeed,
}

// feedView is an activity feed of one repository.
type feedView struct {
	Repo  string
	Items []feedItem
	Next  int64
}

// feedItem is one version in a feed, with at most feedKeys keys named.
type feedItem struct {
	server.VersionActivity
	More int // keys changed or deleted but not named
}

// feedKeys bounds the keys named per version: a seed of 1,000 entries is
// one line, not 1,000 links.
const feedKeys = 8

func newFeed(repo string, p server.ActivityPage) feedView {
	f := feedView{Repo: repo, Next: p.Next}
	for _, it := range p.Items {
		fi := feedItem{VersionActivity: it}
		fi.Changed = it.Changed[:min(len(it.Changed), feedKeys)]
		fi.Deleted = it.Deleted[:min(len(it.Deleted), feedKeys-len(fi.Changed))]
		fi.More = len(it.Changed) + len(it.Deleted) - len(fi.Changed) - len(fi.Deleted)
		f.Items = append(f.Items, fi)
	}
	return f
}

// repoURL is a repository's page.
func repoURL(repo string) string { return uiPrefix + "/r/" + repo }

// entryURL is an entry's page, at version v when v > 0.
func entryURL(repo, key string, v int64) string {
	q := url.Values{"key": {key}}
	if v > 0 {
		q.Set("v", itoa(v))
	}
	return repoURL(repo) + "/~entry?" + q.Encode()
}

// diffURL is the page comparing two versions of an entry.
func diffURL(repo, key string, from, to int64) string {
	q := url.Values{"key": {key}, "from": {itoa(from)}, "to": {itoa(to)}}
	return repoURL(repo) + "/~diff?" + q.Encode()
}

func humanBytes(n int64) string {
	switch {
	case n < 1000:
		return itoa(n) + " B"
	case n < 1000_000:
		return strconv.FormatFloat(float64(n)/1000, 'f', 1, 64) + " kB"
	}
	return strconv.FormatFloat(float64(n)/1e6, 'f', 1, 64) + " MB"
}

// ago says how long before now t was, roughly.
func ago(t time.Time) string {
	d := time.Since(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return itoa(int64(d/time.Minute)) + " min ago"
	case d < 48*time.Hour:
		return itoa(int64(d/time.Hour)) + " h ago"
	}
	return itoa(int64(d/(24*time.Hour))) + " days ago"
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
