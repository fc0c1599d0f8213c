// Package httpapi serves the team memory protocol over HTTP: the chi router,
// the REST and event-stream handlers, bearer-token authentication and the
// access log (the Prometheus collectors they feed are server/metrics'). It
// mounts the web UI (server/webui) and /mcp (server/mcp) beside the API.
// Handlers return errors; httpkit.Translate turns each into one status and
// the error envelope.
package httpapi

import (
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/events"
	"github.com/teammem/teammem/server/httpkit"
	"github.com/teammem/teammem/server/metrics"
	"github.com/teammem/teammem/server/webui"
)

// Options configure the HTTP handler.
type Options struct {
	Service *server.Service
	// Events is the fan-out the Service publishes to: /readyz reports its
	// readiness and the metrics its counters (nil: neither).
	Events *events.Hub
	// Auth verifies bearer tokens; nil with NoAuth set makes every caller an
	// admin named "anonymous" (loopback demos only; the command enforces it).
	Auth   server.Authenticator
	NoAuth bool
	Logger *slog.Logger
	// Metrics collects Prometheus metrics; nil creates a private set.
	Metrics *metrics.Metrics
	// RateLimit is requests per second per token subject (burst twice
	// that); 0 disables it.
	RateLimit float64
	// ServeMetrics serves /metrics on this handler.
	ServeMetrics bool
	// Ready reports readiness beyond the store's Ping (nil: store only).
	Ready func() error
	// NoAccessLog leaves out the one line per request (errors, refusals
	// and debug lines are still logged).
	NoAccessLog bool
	// RequestTimeout bounds a request's store work (default 30 s).
	RequestTimeout time.Duration
	// BodyCacheBytes bounds the cache of encoded GET bodies (default
	// 32 MiB; negative disables it).
	BodyCacheBytes int64
	// UISecret keys the web UI's session cookies; replicas that share it
	// accept each other's sessions. Nil takes a random secret (sessions
	// then end with the process).
	UISecret []byte
	// UISessions records the web UI's signed-out sessions (the store's,
	// shared by every replica); required unless NoAuth.
	UISessions server.SessionStore
	// Heartbeat is how long an events stream may stay silent before a
	// comment line is sent (default 15 s).
	Heartbeat time.Duration
	// MCP, when not nil, is served at /mcp behind the authentication
	// (server/mcp builds it; RequestPrincipal gives it the caller).
	MCP http.Handler
	// StreamWriteTimeout bounds the write of one event or heartbeat: a
	// reader that takes longer is disconnected (default 10 s).
	StreamWriteTimeout time.Duration
}

type handler struct {
	svc     *server.Service
	auth    server.Authenticator
	noAuth  bool
	log     *slog.Logger
	metrics *metrics.Metrics
	limiter *httpkit.Limiter
	timeout time.Duration
	bodies  *bodyCache
	flights flights
	chunks  eventChunks
	release *releaser
	// accessLog writes one line per request.
	accessLog bool

	heartbeat, streamWriteTimeout time.Duration
}

// NewHandler returns the server's HTTP handler.
func NewHandler(o Options) http.Handler {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Metrics == nil {
		o.Metrics = metrics.New()
	}
	if o.RequestTimeout <= 0 {
		o.RequestTimeout = 30 * time.Second
	}
	if o.BodyCacheBytes == 0 {
		o.BodyCacheBytes = 32 << 20
	}
	if o.Heartbeat <= 0 {
		o.Heartbeat = DefaultHeartbeat
	}
	if o.StreamWriteTimeout <= 0 {
		o.StreamWriteTimeout = DefaultStreamWriteTimeout
	}
	h := &handler{svc: o.Service, auth: o.Auth, noAuth: o.NoAuth, log: o.Logger, metrics: o.Metrics,
		limiter: httpkit.NewLimiter(o.RateLimit), timeout: o.RequestTimeout,
		bodies: newBodyCache(o.BodyCacheBytes), heartbeat: o.Heartbeat, streamWriteTimeout: o.StreamWriteTimeout,
		release: newReleaser(), accessLog: !o.NoAccessLog}
	ui, err := webui.New(webui.Options{Service: o.Service, Auth: o.Auth, NoAuth: o.NoAuth, Logger: o.Logger,
		Metrics: o.Metrics, Limiter: h.limiter, Timeout: o.RequestTimeout, Secret: o.UISecret, Sessions: o.UISessions})
	if err != nil {
		panic(fmt.Sprintf("web UI: %v", err)) // embedded templates that do not parse: a build defect
	}
	if o.Events != nil {
		o.Metrics.WatchHub(o.Events)
	}

	r := chi.NewRouter()
	r.Use(httpkit.RequestIDs(h.svc.ServerID()), h.observe, h.recoverPanics)
	r.NotFound(h.wrap(func(w http.ResponseWriter, r *http.Request) error {
		return httpkit.NotFound("no such resource: " + r.URL.Path)
	}))
	r.MethodNotAllowed(h.wrap(func(w http.ResponseWriter, r *http.Request) error { return httpkit.ErrMethodNotAllowed }))

	r.Get(api.PathHealthz, h.healthz)
	r.Get(api.PathReadyz, h.readyz(o.Ready, o.Events))
	r.Get(api.PathServer, h.getServer)
	if o.ServeMetrics {
		r.Method(http.MethodGet, api.PathMetrics, o.Metrics.Handler())
	}
	ui.Mount(r)
	r.Group(func(r chi.Router) {
		r.Use(h.authenticate)
		for _, base := range []string{api.PathTeamMemory, api.PathTeamMemoryAlias} {
			r.Get(base, h.wrap(h.getTeamMemory))
			r.Put(base, h.wrap(h.putTeamMemory))
			r.Get(base+"/events", h.wrap(h.getEvents))
		}
		r.Get(api.PathHistory, h.wrap(h.getHistory))
		r.Get(api.PathRevision, h.wrap(h.getRevision))
		r.Get(api.PathRepos, h.wrap(h.getRepos))
		r.Get(api.PathWhoami, h.wrap(h.getWhoami))
		r.Get(api.PathActivity, h.wrap(h.getActivity))
		r.Post(api.PathSeen, h.wrap(h.postSeen))
		r.Get(api.PathSearch, h.wrap(h.getSearch))
		r.Post(api.PathStaleReferences, h.wrap(h.postStaleReferences))
		r.Get(api.PathStaleReferences, h.wrap(h.getStaleReferences))
		h.mountMCP(r, o.MCP)
	})
	return r
}

// wrap adapts an error-returning handler.
func (h *handler) wrap(fn func(http.ResponseWriter, *http.Request) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := fn(w, r); err != nil {
			h.writeError(w, r, err)
		}
	}
}
