package httpapi

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/teammem/teammem/server"
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
	// counters are read by watchHub.
	eventsDelivered prometheus.Counter
	toolCalls       *prometheus.HistogramVec
	hubOnce         sync.Once
}

// NewMetrics creates the collectors and registers them with the Go and
// process collectors.
func NewMetrics() *Metrics {
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
		rateLimited:  prometheus.NewCounter(prometheus.CounterOpts{Name: "teammem_rate_limited_total", Help: "Requests refused with 429."}),
		eventsDelivered: prometheus.NewCounter(prometheus.CounterOpts{Name: "teammem_events_delivered_total",
			Help: "Change events written to event streams (one per stream per event)."}),
		toolCalls: newToolCalls(),
	}
	m.reg.MustRegister(m.requests, m.storeOps, m.conflicts, m.entriesWritten, m.entriesSkipped, m.bytesWritten, m.authFailures, m.rateLimited,
		m.eventsDelivered, m.toolCalls,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// watchHub exports the events hub's counters (once per Metrics: the first
// hub watched is the server's).
func (m *Metrics) watchHub(hub *server.Hub) {
	m.hubOnce.Do(func() {
		stat := func(f func(server.HubStats) int64) func() float64 {
			return func() float64 { return float64(f(hub.Stats())) }
		}
		m.reg.MustRegister(
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "teammem_event_streams_open", Help: "Event streams open now."},
				stat(func(s server.HubStats) int64 { return s.OpenStreams })),
			prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "teammem_events_published_total",
				Help: "Change events of writes made through this server, announced to the subscribers of every server."},
				stat(func(s server.HubStats) int64 { return s.Published })),
			prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "teammem_event_slow_consumer_disconnects_total",
				Help: "Event streams closed because their reader fell too far behind."},
				stat(func(s server.HubStats) int64 { return s.SlowDisconnects })),
			prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "teammem_event_listen_reconnects_total",
				Help: "Times the events broker reconnected and caught subscribers up from history."},
				stat(func(s server.HubStats) int64 { return s.ListenReconnects })),
		)
	})
}

// Handler serves the metrics in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

func (m *Metrics) observeRequest(method, route string, status int, d time.Duration) {
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

// recordWrite counts what a successful PUT changed.
func (m *Metrics) recordWrite(in server.PutInput, res server.WriteResult) {
	m.entriesWritten.Add(float64(len(res.Changed)))
	var n int
	for _, k := range res.Changed {
		n += len(in.Entries[k])
	}
	m.bytesWritten.Add(float64(n))
}

// InstrumentStore wraps a Store so that every operation's duration is
// recorded.
func (m *Metrics) InstrumentStore(s server.Store) server.Store { return &instrumentedStore{s: s, m: m} }

type instrumentedStore struct {
	s server.Store
	m *Metrics
}

var _ server.Store = (*instrumentedStore)(nil)

func (i *instrumentedStore) observe(op string, start time.Time, err error) {
	outcome := "ok"
	if err != nil {
		outcome = "error"
		if server.IsClientError(err) {
			outcome = "refused"
		}
	}
	i.m.storeOps.WithLabelValues(op, outcome).Observe(time.Since(start).Seconds())
}

func (i *instrumentedStore) RepoState(ctx context.Context, repo string) (server.RepoState, error) {
	start := time.Now()
	st, err := i.s.RepoState(ctx, repo)
	i.observe("repo_state", start, err)
	return st, err
}

func (i *instrumentedStore) Precondition(ctx context.Context, repo string, c server.Preconditions) error {
	start := time.Now()
	err := i.s.Precondition(ctx, repo, c)
	i.observe("precondition", start, err)
	return err
}

func (i *instrumentedStore) Snapshot(ctx context.Context, repo string, o server.ReadOptions) (server.Snapshot, error) {
	start := time.Now()
	s, err := i.s.Snapshot(ctx, repo, o)
	i.observe("snapshot", start, err)
	return s, err
}

func (i *instrumentedStore) Apply(ctx context.Context, w server.Write) (server.WriteResult, error) {
	start := time.Now()
	r, err := i.s.Apply(ctx, w)
	i.observe("apply", start, err)
	return r, err
}

func (i *instrumentedStore) History(ctx context.Context, repo, key string, before int64, limit int) ([]server.Revision, error) {
	start := time.Now()
	r, err := i.s.History(ctx, repo, key, before, limit)
	i.observe("history", start, err)
	return r, err
}

func (i *instrumentedStore) Revision(ctx context.Context, repo, key string, version int64) (server.Revision, error) {
	start := time.Now()
	r, err := i.s.Revision(ctx, repo, key, version)
	i.observe("revision", start, err)
	return r, err
}

func (i *instrumentedStore) Activity(ctx context.Context, repo string, before int64, limit int) (server.ActivityPage, error) {
	start := time.Now()
	p, err := i.s.Activity(ctx, repo, before, limit)
	i.observe("activity", start, err)
	return p, err
}

func (i *instrumentedStore) Events(ctx context.Context, repo string, after int64, limit int) ([]*server.Event, error) {
	start := time.Now()
	evs, err := i.s.Events(ctx, repo, after, limit)
	i.observe("events", start, err)
	return evs, err
}

func (i *instrumentedStore) Repos(ctx context.Context) ([]server.RepoState, error) {
	start := time.Now()
	r, err := i.s.Repos(ctx)
	i.observe("repos", start, err)
	return r, err
}

func (i *instrumentedStore) PurgeTombstones(ctx context.Context, before time.Time) (int, error) {
	start := time.Now()
	n, err := i.s.PurgeTombstones(ctx, before)
	i.observe("purge_tombstones", start, err)
	return n, err
}

func (i *instrumentedStore) Ping(ctx context.Context) error {
	start := time.Now()
	err := i.s.Ping(ctx)
	i.observe("ping", start, err)
	return err
}

func (i *instrumentedStore) Close() error { return i.s.Close() }

func (i *instrumentedStore) LastAuthors(ctx context.Context, repo string) (map[string]string, error) {
	start := time.Now()
	a, err := i.s.LastAuthors(ctx, repo)
	i.observe("last_authors", start, err)
	return a, err
}
