package metrics

import (
	"context"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/teammem/teammem/server"
)

// SetBuildInfo exports teammem_build_info{version, goversion, store} = 1.
func (m *Metrics) SetBuildInfo(version, goVersion, store string) {
	g := prometheus.NewGauge(prometheus.GaugeOpts{Name: "teammem_build_info",
		Help:        "Always 1; the labels name the running build and its store.",
		ConstLabels: prometheus.Labels{"version": version, "goversion": goVersion, "store": store}})
	g.Set(1)
	m.reg.MustRegister(g)
}

// storeTotalsMaxAge is how long one reading of the store's totals serves
// scrapes.
const storeTotalsMaxAge = 15 * time.Second

// WatchStore exports the store's totals (all repositories together, never
// one series per repository): teammem_store_repos,
// teammem_store_live_entries and teammem_store_live_bytes, labelled with
// the store's name. They are read with Store.Repos at most every 15 s, under
// a 5 s deadline; a failed reading keeps the last values.
func (m *Metrics) WatchStore(s server.Store, store string) {
	t := &storeTotals{s: s}
	labels := prometheus.Labels{"store": store}
	gauge := func(name, help string, v func(storeTotalValues) float64) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help, ConstLabels: labels},
			func() float64 { return v(t.read()) })
	}
	m.reg.MustRegister(
		gauge("teammem_store_repos", "Repositories that hold data.", func(v storeTotalValues) float64 { return v.repos }),
		gauge("teammem_store_live_entries", "Live entries over all repositories.", func(v storeTotalValues) float64 { return v.entries }),
		gauge("teammem_store_live_bytes", "Content bytes of the live entries over all repositories.", func(v storeTotalValues) float64 { return v.bytes }),
	)
}

type storeTotalValues struct{ repos, entries, bytes float64 }

type storeTotals struct {
	s    server.Store
	mu   sync.Mutex
	at   time.Time
	last storeTotalValues
}

func (t *storeTotals) read() storeTotalValues {
	t.mu.Lock()
	defer t.mu.Unlock()
	if time.Since(t.at) < storeTotalsMaxAge {
		return t.last
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	repos, err := t.s.Repos(ctx, "")
	t.at = time.Now()
	if err != nil {
		return t.last
	}
	v := storeTotalValues{repos: float64(len(repos))}
	for _, r := range repos {
		v.entries += float64(r.Entries)
		v.bytes += float64(r.Bytes)
	}
	t.last = v
	return v
}

// ConnTracker counts the HTTP connections open now
// (teammem_http_connections_open), from accept to close: idle keep-alive
// connections and event streams (whose connections the handler takes
// over) included. Wrap the server's listener with Listener.
type ConnTracker struct{ open atomic.Int64 }

// TrackConnections registers the open-connections gauge and returns the
// tracker to wrap the listeners with.
func (m *Metrics) TrackConnections() *ConnTracker {
	c := &ConnTracker{}
	m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "teammem_http_connections_open",
		Help: "Client connections open now (idle keep-alive ones and event streams included)."}, func() float64 { return float64(c.open.Load()) }))
	return c
}

// Listener returns ln counting its connections.
func (c *ConnTracker) Listener(ln net.Listener) net.Listener { return trackedListener{ln, c} }

type trackedListener struct {
	net.Listener
	c *ConnTracker
}

func (l trackedListener) Accept() (net.Conn, error) {
	conn, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	l.c.open.Add(1)
	return &trackedConn{Conn: conn, c: l.c}, nil
}

// trackedConn counts itself out on its first Close.
type trackedConn struct {
	net.Conn
	c      *ConnTracker
	closed atomic.Bool
}

func (t *trackedConn) Close() error {
	if t.closed.CompareAndSwap(false, true) {
		t.c.open.Add(-1)
	}
	return t.Conn.Close()
}
