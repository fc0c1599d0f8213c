// Package router is the server's front door: one chi router on which the
// REST API and its event streams (server/httpapi), the web UI
// (server/webui) and /mcp (server/mcp) are mounted side by side, behind the
// middleware they share (server/httpkit: request ids, the access log and
// request metrics, panic recovery, the Host check, the refusal of
// cross-site writes, bearer authentication and the rate limit). None of
// the surfaces imports another; this is the one package that knows them
// all. JSONErrors answers the refusals net/http makes before any handler
// runs with the same error envelope. With OAuth on, the authorization
// server (server/oauth) is mounted beside them, its consent page in the
// web UI.
package router

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/auth"
	"github.com/teammem/teammem/server/events"
	"github.com/teammem/teammem/server/health"
	"github.com/teammem/teammem/server/httpapi"
	"github.com/teammem/teammem/server/httpkit"
	"github.com/teammem/teammem/server/mcp"
	"github.com/teammem/teammem/server/metrics"
	"github.com/teammem/teammem/server/oauth"
	"github.com/teammem/teammem/server/webui"
)

// Options configure the server's HTTP handler.
type Options struct {
	Service *server.Service
	// Events is the fan-out the Service publishes to: /readyz reports its
	// readiness and the metrics its counters (nil: neither).
	Events *events.Hub
	// Auth verifies bearer tokens and the web UI's sessions; nil with
	// NoAuth set makes every caller an admin named "anonymous" (loopback
	// demos only; the command enforces it).
	Auth   server.Authenticator
	NoAuth bool
	Logger *slog.Logger
	// Metrics collects Prometheus metrics; nil creates a private set.
	Metrics *metrics.Metrics
	// RateLimit is requests per second per token subject (burst twice
	// that), shared by every surface; 0 disables it.
	RateLimit float64
	// ServeMetrics serves /metrics on this handler.
	ServeMetrics bool
	// Ready reports readiness beyond the store's Ping (nil: store only).
	Ready func() error
	// NoAccessLog leaves out the one line per request and per MCP tool
	// call (errors, refusals and debug lines are still logged).
	NoAccessLog bool
	// RequestTimeout bounds the store work of a request or a page
	// (default 30 s).
	RequestTimeout time.Duration
	// BodyCacheBytes bounds the REST API's cache of encoded GET bodies
	// (default 32 MiB; negative disables it).
	BodyCacheBytes int64
	// Heartbeat and StreamWriteTimeout tune the events stream (see
	// httpapi.Options).
	Heartbeat, StreamWriteTimeout time.Duration
	// UISecret keys the web UI's session cookies; replicas that share it
	// accept each other's sessions. Nil takes a random secret (sessions
	// then end with the process).
	UISecret []byte
	// UISessions records the web UI's signed-out sessions (the store's,
	// shared by every replica); required unless NoAuth.
	UISessions server.SessionStore
	// Version is the server's version, reported to MCP clients.
	Version string
	// Listen is the listen address (HOST:PORT): a host that is a name is
	// one of the server's names.
	Listen string
	// PublicHosts are the names clients reach the server by (host names,
	// HOST:PORT or URLs; only the host name counts). With any, or with
	// NoAuth, a request addressed to another name is refused (421), IP
	// addresses and localhost aside; otherwise every name is answered.
	PublicHosts []string
	// MaxMCPReplyBytes bounds the reply of one MCP tool call (default
	// mcp.DefaultMaxReplyBytes); RequestTimeout bounds its time.
	MaxMCPReplyBytes int
	// Health makes the health reports and tidy proposals of the REST API,
	// the web UI and /mcp (nil: one over Service with the default
	// settings and no proposer). Its Observe, when nil, is set to the
	// metrics' gauges.
	Health *health.Checker
	// OAuth, when set, makes the server an OAuth 2.1 authorization server
	// for the API and /mcp (server/oauth).
	OAuth *OAuth
	// PublicURL is the server's base URL as clients reach it ("": each
	// request's scheme and Host).
	PublicURL string
	// Provider is the organisation's identity provider people sign in to
	// the web UI with (nil: tokens only); SignInRecheck is how often a
	// session asks it again.
	Provider      server.IdentityProvider
	SignInRecheck time.Duration
	// SignIns keeps the sign-ins with Provider (required with it);
	// SignInGrace is how long their grants hold while the provider cannot
	// be reached (0: server.DefaultSignInGrace).
	SignIns     server.SignInStore
	SignInGrace time.Duration
}

// OAuth configures the authorization server.
type OAuth struct {
	Store server.OAuthStore
	// Key signs the access tokens (the server's key) as IssuerName.
	Key        ed25519.PrivateKey
	IssuerName string
	// Revocations is read at refreshes and records ended sessions.
	Revocations server.RevocationStore
	// AccessTTL is an access token's lifetime (0: the default).
	AccessTTL time.Duration
	// MetadataClient fetches client metadata documents (nil: one that
	// refuses private addresses unless PrivateClientMetadata).
	MetadataClient        *http.Client
	PrivateClientMetadata bool
	// DeviceInterval is the least time between a device's polls (0: the
	// default). The device grant is on when Store keeps devices.
	DeviceInterval time.Duration
}

func (c *OAuth) options(mw *httpkit.Middleware, o Options) oauth.Options {
	mc := c.MetadataClient
	if mc == nil {
		mc = oauth.NewMetadataClient(c.PrivateClientMetadata)
	}
	devices, _ := c.Store.(server.DeviceStore)
	return oauth.Options{Store: c.Store, Issuer: &auth.Issuer{Key: c.Key, Name: c.IssuerName}, Revocations: c.Revocations,
		Middleware: mw, PublicURL: o.PublicURL, AccessTTL: c.AccessTTL, MetadataClient: mc, Logger: o.Logger,
		Devices: devices, DeviceInterval: c.DeviceInterval}
}

// New returns the server's HTTP handler. An error names a public host
// that is not a host name, or means the web UI could not be built: no
// session store while authentication is on, or embedded templates that do
// not parse (a build defect).
func New(o Options) (http.Handler, error) {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Metrics == nil {
		o.Metrics = metrics.New()
	}
	if o.Events != nil {
		o.Metrics.WatchHub(o.Events)
	}
	if o.Health == nil {
		o.Health = &health.Checker{Service: o.Service}
	}
	if o.Health.Observe == nil {
		o.Health.Observe = o.Metrics.HealthFindings
	}
	hosts, err := httpkit.NewHosts(o.Listen, o.PublicHosts, o.NoAuth || len(o.PublicHosts) > 0)
	if err != nil {
		return nil, err
	}
	mw := &httpkit.Middleware{Log: o.Logger, Meter: o.Metrics, Auth: o.Auth, NoAuth: o.NoAuth,
		Limiter: httpkit.NewLimiter(o.RateLimit), AccessLog: !o.NoAccessLog, PublicURL: o.PublicURL}
	var signins *server.SignIns
	if o.Provider != nil && !o.NoAuth {
		if o.SignIns == nil {
			return nil, errors.New("sign-in with an identity provider needs a store of sign-ins")
		}
		so := server.SignInsOptions{Store: o.SignIns, Provider: o.Provider, Recheck: o.SignInRecheck, Grace: o.SignInGrace,
			Secret: o.UISecret}
		if o.OAuth != nil {
			so.Revocations = o.OAuth.Revocations
		}
		if signins, err = server.NewSignIns(so); err != nil {
			return nil, err
		}
	}
	var authz *oauth.Server
	if o.OAuth != nil && !o.NoAuth {
		oo := o.OAuth.options(mw, o)
		oo.SignIns = signins
		authz, mw.OAuth = oauth.New(oo), true
	}
	uo := webui.Options{Service: o.Service, Auth: o.Auth, NoAuth: o.NoAuth, Logger: o.Logger, Metrics: o.Metrics,
		Limiter: mw.Limiter, Timeout: o.RequestTimeout, Secret: o.UISecret, Sessions: o.UISessions, PublicURL: o.PublicURL,
		Provider: o.Provider, SignIns: signins, Health: o.Health}
	if authz != nil {
		uo.Authorizer = authz
		if authz.TakesDevices() {
			uo.Devices = authz
		}
	}
	ui, err := webui.New(uo)
	if err != nil {
		return nil, fmt.Errorf("web UI: %w", err)
	}
	tools := mcp.New(mcp.Options{Service: o.Service, Logger: o.Logger, ObserveToolCall: o.Metrics.ObserveToolCall,
		Version: o.Version, NoAccessLog: o.NoAccessLog, Limiter: mw.Limiter, RateLimited: o.Metrics.RateLimited,
		CallTimeout: o.RequestTimeout, MaxReplyBytes: o.MaxMCPReplyBytes, Health: o.Health})

	r := chi.NewRouter()
	r.Use(httpkit.RequestIDs(o.Service.ServerID()), mw.Observe, mw.Recover, mw.CheckHost(hosts))
	r.NotFound(mw.Wrap(func(w http.ResponseWriter, r *http.Request) error {
		return httpkit.NotFound("no such resource: " + r.URL.Path)
	}))
	r.MethodNotAllowed(mw.Wrap(func(w http.ResponseWriter, r *http.Request) error { return httpkit.ErrMethodNotAllowed }))
	if o.ServeMetrics {
		r.Method(http.MethodGet, api.PathMetrics, o.Metrics.Handler())
	}
	// The API's writes and /mcp take no request a page of another site
	// can send; the web UI's forms carry their own guards (a CSRF token,
	// the same-origin check).
	r.Group(func(r chi.Router) {
		r.Use(mw.SameOriginWrites, mw.NoFormPosts)
		httpapi.Mount(r, httpapi.Options{Service: o.Service, Events: o.Events, Middleware: mw, Metrics: o.Metrics,
			Ready: o.Ready, RequestTimeout: o.RequestTimeout, BodyCacheBytes: o.BodyCacheBytes,
			Heartbeat: o.Heartbeat, StreamWriteTimeout: o.StreamWriteTimeout, Health: o.Health})
	})
	ui.Mount(r)
	if authz != nil {
		authz.Mount(r)
	}
	r.With(mw.SameOrigin, mw.NoFormPosts, mw.VerifyCaller).Handle(mcp.Path, tools)
	return r, nil
}
