package httpkit

import (
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/server"
)

// Meter counts what the middleware sees (server/metrics' Metrics is one).
type Meter interface {
	// ObserveRequest records one request's duration under its route.
	ObserveRequest(method, route string, status int, d time.Duration)
	// AuthFailure, Conflict and RateLimited count refusals with 401, 412
	// and 429.
	AuthFailure()
	Conflict()
	RateLimited()
}

// Middleware is what every surface's requests pass through, over one
// logger, one Meter, one verifier and one rate limiter: the access log and
// request metrics (Observe), panic recovery (Recover), bearer-token
// authentication (Authenticate), and the JSON error answer (WriteError).
// Log and Meter must be set; its methods are safe for concurrent use.
type Middleware struct {
	Log   *slog.Logger
	Meter Meter
	// Auth verifies bearer tokens; nil with NoAuth set makes every caller
	// Anonymous (loopback demos only; the command enforces it).
	Auth   server.Authenticator
	NoAuth bool
	// Limiter is the per-subject rate limit (nil: none).
	Limiter *Limiter
	// AccessLog writes one line per request at info; without it the line
	// is written at debug (errors and refusals are logged either way).
	AccessLog bool
	// OAuth says the server is an OAuth authorization server for its own
	// resources: a 401 names the resource's metadata.
	OAuth bool
	// PublicURL is the server's base URL as clients reach it ("": taken
	// from each request; see BaseURL).
	PublicURL string
}

// statusWriter records the status and the bytes written.
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (s *statusWriter) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusWriter) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	n, err := s.ResponseWriter.Write(b)
	s.bytes += int64(n)
	return n, err
}

// Flush lets streaming handlers flush through the wrapper.
func (s *statusWriter) Flush() {
	if f, ok := s.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap exposes the underlying writer to http.ResponseController.
func (s *statusWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// Observe logs one structured line per request and records its duration.
// It runs inside RequestIDs.
func (m *Middleware) Observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		info := InfoOf(r.Context())
		next.ServeHTTP(sw, r)
		d := time.Since(start)
		if sw.status == 0 {
			sw.status = http.StatusOK
		}
		route := RoutePattern(r)
		m.Meter.ObserveRequest(r.Method, route, sw.status, d)
		level := slog.LevelInfo
		if route == api.PathMetrics || route == api.PathHealthz || route == api.PathReadyz || !m.AccessLog {
			level = slog.LevelDebug // probes and scrapes, or no access log: only at --log-level debug
		}
		if !m.Log.Enabled(r.Context(), level) {
			return
		}
		attrs := []slog.Attr{slog.String("request_id", RequestID(r.Context())),
			slog.String("method", r.Method), slog.String("route", route),
			slog.String("repo", info.Repo), slog.String("subject", info.Subject),
			slog.Int("status", sw.status), slog.Int64("bytes", sw.bytes),
			slog.Duration("duration", d)}
		if m.Log.Enabled(r.Context(), slog.LevelDebug) {
			attrs = append(attrs, slog.String("client", r.RemoteAddr), slog.String("user_agent", r.UserAgent()),
				slog.Int64("request_bytes", r.ContentLength), slog.String("query", redactQuery(r)),
				slog.String("encoding", sw.Header().Get("Content-Encoding")))
		}
		m.Log.LogAttrs(r.Context(), level, "request", attrs...)
	})
}

// redactQuery is the query string for a debug line, with the repo
// parameter reduced as LogRepo does.
func redactQuery(r *http.Request) string {
	q := r.URL.Query()
	if q.Has("repo") {
		q.Set("repo", LogRepo(q.Get("repo")))
	}
	return q.Encode()
}

// LogRepo is what the access log records of a repo parameter: its
// canonical slug, or the raw value with any credentials removed.
func LogRepo(repo string) string {
	if canon, err := server.CanonicalRepo(repo); err == nil {
		return canon
	}
	return server.RedactRepo(repo)
}

// Recover turns a handler panic into a 500 and a log line with stack.
func (m *Middleware) Recover(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				m.Log.Error("panic", "request_id", RequestID(r.Context()), "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
				m.WriteError(w, r, fmt.Errorf("panic: %v", v))
			}
		}()
		next.ServeHTTP(w, r)
	})
}
