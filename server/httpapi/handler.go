// Package httpapi serves the team memory protocol over HTTP: the REST and
// event-stream handlers and the health probes, mounted by server/router
// beside the web UI and /mcp behind httpkit's middleware (the Prometheus
// collectors they feed are server/metrics'). Handlers return errors;
// httpkit.Translate turns each into one status and the error envelope.
package httpapi

import (
	"log/slog"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/events"
	"github.com/teammem/teammem/server/health"
	"github.com/teammem/teammem/server/httpkit"
	"github.com/teammem/teammem/server/metrics"
)

// Options configure the REST API.
type Options struct {
	Service *server.Service
	// Events is the fan-out the Service publishes to: /readyz reports its
	// readiness (nil: not).
	Events *events.Hub
	// Middleware writes the errors and re-verifies the tokens of event
	// streams; its Authenticate guards every route but the probes and
	// /api/v1/server. Required.
	Middleware *httpkit.Middleware
	// Metrics counts writes, skipped entries and delivered events; nil
	// creates a private set.
	Metrics *metrics.Metrics
	// Ready reports readiness beyond the store's Ping (nil: store only).
	Ready func() error
	// RequestTimeout bounds a request's store work (default 30 s).
	RequestTimeout time.Duration
	// BodyCacheBytes bounds the cache of encoded GET bodies (default
	// 32 MiB; negative disables it).
	BodyCacheBytes int64
	// Heartbeat is how long an events stream may stay silent before a
	// comment line is sent (default 15 s).
	Heartbeat time.Duration
	// StreamWriteTimeout bounds the write of one event or heartbeat: a
	// reader that takes longer is disconnected (default 10 s).
	StreamWriteTimeout time.Duration
	// Health makes the health reports and tidy proposals (nil: one over
	// Service with the default settings and no proposer).
	Health *health.Checker
}

type handler struct {
	svc     *server.Service
	mw      *httpkit.Middleware
	log     *slog.Logger
	metrics *metrics.Metrics
	timeout time.Duration
	bodies  *bodyCache
	flights flights
	chunks  eventChunks
	release *releaser
	health  *health.Checker

	heartbeat, streamWriteTimeout time.Duration
}

// Mount serves the REST API, its event streams and the health probes on r.
func Mount(r chi.Router, o Options) {
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
	h := &handler{svc: o.Service, mw: o.Middleware, log: o.Middleware.Log, metrics: o.Metrics, timeout: o.RequestTimeout,
		bodies: newBodyCache(o.BodyCacheBytes), heartbeat: o.Heartbeat, streamWriteTimeout: o.StreamWriteTimeout,
		release: newReleaser(), health: o.Health}
	if h.health == nil {
		h.health = &health.Checker{Service: o.Service}
	}

	r.Get(api.PathHealthz, h.healthz)
	r.Get(api.PathReadyz, h.readyz(o.Ready, o.Events))
	r.Get(api.PathServer, h.getServer)
	r.Group(func(r chi.Router) {
		r.Use(h.mw.Authenticate)
		for _, base := range []string{api.PathTeamMemory, api.PathTeamMemoryAlias} {
			r.Get(base, h.mw.Wrap(h.getTeamMemory))
			r.Put(base, h.mw.Wrap(h.putTeamMemory))
			r.Get(base+"/events", h.mw.Wrap(h.getEvents))
		}
		r.Get(api.PathHistory, h.mw.Wrap(h.getHistory))
		r.Get(api.PathRevision, h.mw.Wrap(h.getRevision))
		r.Get(api.PathRepos, h.mw.Wrap(h.getRepos))
		r.Get(api.PathWhoami, h.mw.Wrap(h.getWhoami))
		r.Get(api.PathActivity, h.mw.Wrap(h.getActivity))
		r.Get(api.PathBlame, h.mw.Wrap(h.getBlame))
		r.Get(api.PathAudit, h.mw.Wrap(h.getAudit))
		r.Post(api.PathSeen, h.mw.Wrap(h.postSeen))
		r.Get(api.PathSearch, h.mw.Wrap(h.getSearch))
		r.Post(api.PathStaleReferences, h.mw.Wrap(h.postStaleReferences))
		r.Get(api.PathStaleReferences, h.mw.Wrap(h.getStaleReferences))
		h.mountReview(r)
		r.Get(api.PathHealth, h.mw.Wrap(h.getHealth))
		r.Post(api.PathTidy, h.mw.Wrap(h.postTidy))
	})
}
