// Package webui serves the web UI under /ui/: server-rendered pages
// (html/template, goldmark + bluemonday) over the Service, signed in with a
// teammem token held in a session cookie. No script runs in its pages.
// server/router mounts it beside the REST API and /mcp.
package webui

import (
	"embed"
	"errors"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"time"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/health"
	"github.com/teammem/teammem/server/httpkit"
	"github.com/teammem/teammem/server/metrics"
)

// prefix is where the web UI is served.
const prefix = "/ui"

//go:embed ui/templates/*.html ui/static/*
var embedded embed.FS

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
	// Sessions records the sessions signed out before they expire, in the
	// store every replica shares, so a copy of a signed-out cookie is
	// refused everywhere. Required unless NoAuth.
	Sessions server.SessionStore
	// Health makes the Health page's reports and its tidy proposals
	// (nil: one over Service with the default settings and no proposer).
	Health *health.Checker
	// Authorizer is the OAuth authorization server whose consent and
	// "Your sessions" pages the UI serves (nil: neither).
	Authorizer server.Authorizer
	// Devices is the device authorization grant whose verification page
	// (/ui/device) the UI serves (nil: none).
	Devices server.DeviceAuthorizer
	// PublicURL is the server's base URL ("": each request's).
	PublicURL string
	// Provider, when set, is the organisation's identity provider, which
	// the sign-in page offers first; a session asks it again as often as
	// SignIns's Recheck says.
	Provider server.IdentityProvider
	// SignIns keeps the sign-ins with Provider (required with it).
	SignIns *server.SignIns
}

// UI serves the web UI: server-rendered pages over the Service, signed in
// with a teammem token held in a session cookie.
type UI struct {
	svc       *server.Service
	auth      server.Authenticator
	noAuth    bool
	log       *slog.Logger
	metrics   *metrics.Metrics
	limiter   *httpkit.Limiter
	timeout   time.Duration
	pages     map[string]*template.Template
	sessions  *sessions
	ended     server.SessionStore
	md        *markdown
	static    http.Handler
	authz     server.Authorizer
	devices   server.DeviceAuthorizer
	publicURL string
	idp       server.IdentityProvider
	signins   *server.SignIns
	health    *health.Checker
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
	if o.Provider != nil && o.SignIns == nil {
		return nil, errors.New("the web UI's sign-in with an identity provider needs a store of sign-ins")
	}
	if o.Sessions == nil && !o.NoAuth {
		return nil, errors.New("the web UI needs a session store to end sessions at sign-out")
	}
	s, err := newSessions(o.Secret)
	if err != nil {
		return nil, err
	}
	pages, err := parsePages()
	if err != nil {
		return nil, err
	}
	static, err := fs.Sub(embedded, "ui/static")
	if err != nil {
		return nil, err
	}
	if o.Health == nil {
		o.Health = &health.Checker{Service: o.Service}
	}
	return &UI{svc: o.Service, auth: o.Auth, noAuth: o.NoAuth, log: o.Logger, metrics: o.Metrics, limiter: o.Limiter,
		timeout: o.Timeout, pages: pages, sessions: s, ended: o.Sessions, md: newMarkdown(),
		static: http.StripPrefix(prefix+"/static/", http.FileServerFS(static)), authz: o.Authorizer, devices: o.Devices, publicURL: o.PublicURL,
		idp: o.Provider, signins: o.SignIns, health: o.Health}, nil
}
