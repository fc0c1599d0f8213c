package httpapi

import (
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/httpkit"
)

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

// observe logs one structured line per request and records its duration.
func (h *handler) observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		info := httpkit.InfoOf(r.Context())
		next.ServeHTTP(sw, r)
		d := time.Since(start)
		if sw.status == 0 {
			sw.status = http.StatusOK
		}
		route := httpkit.RoutePattern(r)
		h.metrics.ObserveRequest(r.Method, route, sw.status, d)
		level := slog.LevelInfo
		if route == api.PathMetrics || route == api.PathHealthz || route == api.PathReadyz || !h.accessLog {
			level = slog.LevelDebug // probes and scrapes, or no access log: only at --log-level debug
		}
		if !h.log.Enabled(r.Context(), level) {
			return
		}
		attrs := []slog.Attr{slog.String("request_id", httpkit.RequestID(r.Context())),
			slog.String("method", r.Method), slog.String("route", route),
			slog.String("repo", info.Repo), slog.String("subject", info.Subject),
			slog.Int("status", sw.status), slog.Int64("bytes", sw.bytes),
			slog.Duration("duration", d)}
		if h.log.Enabled(r.Context(), slog.LevelDebug) {
			attrs = append(attrs, slog.String("client", r.RemoteAddr), slog.String("user_agent", r.UserAgent()),
				slog.Int64("request_bytes", r.ContentLength), slog.String("query", redactQuery(r)),
				slog.String("encoding", sw.Header().Get("Content-Encoding")))
		}
		h.log.LogAttrs(r.Context(), level, "request", attrs...)
	})
}

// redactQuery is the query string for a debug line, with the repo
// parameter reduced as logRepo does.
func redactQuery(r *http.Request) string {
	q := r.URL.Query()
	if q.Has("repo") {
		q.Set("repo", logRepo(q.Get("repo")))
	}
	return q.Encode()
}

// logRepo is what the access log records of a repo parameter: its
// canonical slug, or the raw value with any credentials removed.
func logRepo(repo string) string {
	if canon, err := server.CanonicalRepo(repo); err == nil {
		return canon
	}
	return server.RedactRepo(repo)
}

// recoverPanics turns a handler panic into a 500 and a log line with stack.
func (h *handler) recoverPanics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				h.log.Error("panic", "request_id", httpkit.RequestID(r.Context()), "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
				h.writeError(w, r, fmt.Errorf("panic: %v", v))
			}
		}()
		next.ServeHTTP(w, r)
	})
}
