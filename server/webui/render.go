package webui

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/teammem/teammem/server/httpkit"
)

// sharedTemplates are the templates every page may use: the layout and
// the parts several pages show (the activity feed, a diff's table, a
// revision's provenance).
var sharedTemplates = []string{"layout", "feed", "hunks", "provenance"}

// parsePages parses each page template together with the shared ones.
func parsePages() (map[string]*template.Template, error) {
	var shared []string
	for _, n := range sharedTemplates {
		shared = append(shared, "ui/templates/"+n+".html")
	}
	layout, err := template.New("layout.html").Funcs(templateFuncs).ParseFS(embedded, shared...)
	if err != nil {
		return nil, fmt.Errorf("parse layout: %w", err)
	}
	names, err := fs.Glob(embedded, "ui/templates/*.html")
	if err != nil {
		return nil, err
	}
	pages := map[string]*template.Template{}
	for _, n := range names {
		name := strings.TrimSuffix(strings.TrimPrefix(n, "ui/templates/"), ".html")
		if slices.Contains(sharedTemplates, name) {
			continue
		}
		t, err := template.Must(layout.Clone()).ParseFS(embedded, n)
		if err != nil {
			return nil, fmt.Errorf("parse %s: %w", n, err)
		}
		pages[name] = t
	}
	return pages, nil
}

// page is what every template gets.
type page struct {
	Title   string
	Subject string // "" when signed out
	CSRF    string
	NoAuth  bool
	Repo    string // the repository the page is about, for the breadcrumbs
	Reviews int    // open proposals the caller may decide, for the header
	Data    any
}

// handle adapts an error-returning UI handler that fills a page: the
// handler returns the template name and the page, or an error, which
// becomes an error page.
func (u *UI) handle(fn func(w http.ResponseWriter, r *http.Request, pg *page) (string, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), u.timeout)
		defer cancel()
		r = r.WithContext(ctx)
		c := callerOf(ctx)
		pg := &page{Subject: c.p.Subject, CSRF: u.sessions.csrfToken(c.sess), NoAuth: u.noAuth, Reviews: u.reviewCount(r)}
		name, err := fn(w, r, pg)
		if err != nil {
			u.failIn(w, r, err, pg.Repo)
			return
		}
		if name != "" {
			u.render(w, r, http.StatusOK, name, pg)
		}
	}
}

// render executes a page template into a buffer, then writes it.
func (u *UI) render(w http.ResponseWriter, r *http.Request, status int, name string, pg *page) {
	var buf bytes.Buffer
	t := u.pages[name]
	if t == nil {
		u.log.Error("no such UI template", "template", name)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	if err := t.ExecuteTemplate(&buf, "layout.html", pg); err != nil {
		u.log.LogAttrs(r.Context(), slog.LevelError, "render page", slog.String("request_id", httpkit.RequestID(r.Context())),
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

// errorView is what the error page shows.
type errorView struct {
	Status    int
	Heading   string
	Message   string
	RequestID string
}

// fail renders err as an error page, with the status httpkit's one table
// gives it. A refused repository reads the same whether or not it exists.
func (u *UI) fail(w http.ResponseWriter, r *http.Request, err error) {
	u.failIn(w, r, err, "")
}

// failIn is fail on a page of repo: a missing entry or page keeps the
// repository's breadcrumb and search box (the caller could read the
// repository to get that far); a refusal does not.
func (u *UI) failIn(w http.ResponseWriter, r *http.Request, err error, repo string) {
	var refused *restoreRefused
	if errors.As(err, &refused) {
		u.renderError(w, r, errorView{Status: http.StatusUnprocessableEntity, Heading: "Not restored", Message: refused.message()}, repo)
		return
	}
	f := httpkit.Translate(err)
	if f.Status >= 500 {
		u.log.LogAttrs(r.Context(), slog.LevelError, "request failed", slog.String("request_id", httpkit.RequestID(r.Context())),
			slog.String("route", httpkit.RoutePattern(r)), slog.String("error", err.Error()))
	}
	if f.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(f.RetryAfter))
	}
	e := errorView{Status: f.Status, Heading: http.StatusText(f.Status), Message: f.Message}
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
	if f.Status != http.StatusNotFound {
		repo = ""
	}
	u.renderError(w, r, e, repo)
}

// renderError renders the error page; repo, when not empty, keeps the
// repository's breadcrumb and search box.
func (u *UI) renderError(w http.ResponseWriter, r *http.Request, e errorView, repo string) {
	c := callerOf(r.Context())
	pg := &page{Title: e.Heading, Subject: c.p.Subject, NoAuth: u.noAuth, Data: e, Repo: repo}
	if c.sess.Nonce != "" {
		pg.CSRF = u.sessions.csrfToken(c.sess)
	}
	u.render(w, r, e.Status, "error", pg)
}
