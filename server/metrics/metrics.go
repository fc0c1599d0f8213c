// Package metrics holds the server's Prometheus collectors: the HTTP
// surfaces' request and write counters, the events fan-out's counters, the
// store decorator that times every operation, and the process figures
// (build, store totals, open connections).
package metrics

import (
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/events"
)

// Metrics are the server's Prometheus collectors, in a registry of their own.
type Metrics struct {
	reg            *prometheus.Registry
	requests       *prometheus.HistogramVec
	storeOps       *prometheus.HistogramVec
	conflicts      prometheus.Counter
	entriesWritten prometheus.Counter
	entriesSkipped *prometheus.CounterVec
	bytesWritten   prometheus.Counter
	authFailures   prometheus.Counter
	rateLimited    prometheus.Counter
	// eventsDelivered counts events written to streams; the hub's own
	// counters are read by WatchHub.
	eventsDelivered prometheus.Counter
	toolCalls       *prometheus.HistogramVec
	healthFindings  *prometheus.GaugeVec
	hubOnce         sync.Once
}

// New creates the collectors and registers them with the Go and
// process collectors.
func New() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "teammem_http_request_duration_seconds", Help: "HTTP request duration by route, method and status.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"route", "method", "code"}),
		storeOps: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "teammem_store_operation_duration_seconds", Help: "Store operation duration by operation and outcome.",
			Buckets: []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, 1, 5},
		}, []string{"op", "outcome"}),
		conflicts:      prometheus.NewCounter(prometheus.CounterOpts{Name: "teammem_precondition_failures_total", Help: "PUTs refused with 412 because If-Match did not match."}),
		entriesWritten: prometheus.NewCounter(prometheus.CounterOpts{Name: "teammem_entries_written_total", Help: "Entries created or changed."}),
		entriesSkipped: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "teammem_entries_skipped_total",
			Help: "Entries of PUTs left out (per-entry refusals), by reason."}, []string{"reason"}),
		bytesWritten: prometheus.NewCounter(prometheus.CounterOpts{Name: "teammem_bytes_written_total", Help: "Content bytes of entries created or changed."}),
		authFailures: prometheus.NewCounter(prometheus.CounterOpts{Name: "teammem_auth_failures_total", Help: "Requests refused with 401."}),
		rateLimited:  prometheus.NewCounter(prometheus.CounterOpts{Name: "teammem_rate_limited_total", Help: "Requests refused with 429, and MCP tool calls refused for the rate limit."}),
		eventsDelivered: prometheus.NewCounter(prometheus.CounterOpts{Name: "teammem_events_delivered_total",
			Help: "Change events written to event streams (one per stream per event)."}),
		toolCalls:      newToolCalls(),
		healthFindings: newHealthFindings(),
	}
	m.reg.MustRegister(m.requests, m.storeOps, m.conflicts, m.entriesWritten, m.entriesSkipped, m.bytesWritten, m.authFailures, m.rateLimited,
		m.eventsDelivered, m.toolCalls, m.healthFindings,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// WatchHub exports the events hub's counters (once per Metrics: the first
// hub watched is the server's).
func (m *Metrics) WatchHub(hub *events.Hub) {
	m.hubOnce.Do(func() {
		stat := func(f func(events.Stats) int64) func() float64 {
			return func() float64 { return float64(f(hub.Stats())) }
		}
		m.reg.MustRegister(
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "teammem_event_streams_open", Help: "Event streams open now."},
				stat(func(s events.Stats) int64 { return s.OpenStreams })),
			prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "teammem_events_published_total",
				Help: "Change events of writes made through this server, announced to the subscribers of every server."},
				stat(func(s events.Stats) int64 { return s.Published })),
			prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "teammem_event_slow_consumer_disconnects_total",
				Help: "Event streams closed because their reader fell too far behind."},
				stat(func(s events.Stats) int64 { return s.SlowDisconnects })),
			prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "teammem_event_listen_reconnects_total",
				Help: "Times the events broker reconnected and caught subscribers up from history."},
				stat(func(s events.Stats) int64 { return s.ListenReconnects })),
		)
	})
}

// Handler serves the metrics in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// ObserveRequest records one HTTP request's duration under its route.
func (m *Metrics) ObserveRequest(method, route string, status int, d time.Duration) {
	m.requests.WithLabelValues(route, methodLabel(method), strconv.Itoa(status)).Observe(d.Seconds())
}

// methodLabel bounds the method label to the standard methods, so that a
// caller inventing methods cannot grow the series without limit.
func methodLabel(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPut, http.MethodPost, http.MethodDelete,
		http.MethodPatch, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return m
	}
	return "other"
}

// RecordWrite counts what a successful PUT changed.
func (m *Metrics) RecordWrite(in server.PutInput, res server.WriteResult) {
	m.entriesWritten.Add(float64(len(res.Changed)))
	var n int
	for _, k := range res.Changed {
		n += len(in.Entries[k])
	}
	m.bytesWritten.Add(float64(n))
}

// AuthFailure counts a request refused with 401.
func (m *Metrics) AuthFailure() { m.authFailures.Inc() }

// Conflict counts a PUT refused with 412.
func (m *Metrics) Conflict() { m.conflicts.Inc() }

// RateLimited counts a request refused with 429, or an MCP tool call
// refused for the rate limit.
func (m *Metrics) RateLimited() { m.rateLimited.Inc() }

// EntrySkipped counts an entry of a PUT left out, by reason.
func (m *Metrics) EntrySkipped(reason string) { m.entriesSkipped.WithLabelValues(reason).Inc() }

// EventDelivered counts an event written to one stream.
func (m *Metrics) EventDelivered() { m.eventsDelivered.Inc() }
