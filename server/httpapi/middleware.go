package httpapi

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/server"
)

type ctxKey int

const keyRequest ctxKey = iota

// requestInfo is what the middleware learns about a request, kept in one
// context value set by requestIDs: its id, and what inner layers fill in
// for the handlers and the access log line (the repository, the caller).
type requestInfo struct {
	id      string
	repo    string
	subject string
	// principal is the caller once authenticate has verified it.
	principal server.Principal
}

// infoOf returns the request's info; a context without one (a request
// that did not pass requestIDs) gets an empty one nobody else sees.
func infoOf(ctx context.Context) *requestInfo {
	if info, ok := ctx.Value(keyRequest).(*requestInfo); ok {
		return info
	}
	return &requestInfo{}
}

// requestID returns the request's id.
func requestID(ctx context.Context) string { return infoOf(ctx).id }

// validRequestID accepts a client-sent id only when short and printable.
func validRequestID(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x21 || c > 0x7e {
			return false
		}
	}
	return true
}

func newRequestID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// requestIDs takes X-Request-ID from the request or makes one, and echoes
// it; every answer also names the server (api.HeaderServerID).
func (h *handler) requestIDs(next http.Handler) http.Handler {
	serverID := h.svc.ServerID()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get(api.HeaderRequestID)
		if !validRequestID(id) {
			id = newRequestID()
		}
		w.Header().Set(api.HeaderRequestID, id)
		w.Header().Set(api.HeaderServerID, serverID)
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), keyRequest, &requestInfo{id: id})))
	})
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

// observe logs one structured line per request and records its duration.
func (h *handler) observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		info := infoOf(r.Context())
		next.ServeHTTP(sw, r)
		d := time.Since(start)
		if sw.status == 0 {
			sw.status = http.StatusOK
		}
		route := routePattern(r)
		h.metrics.ObserveRequest(r.Method, route, sw.status, d)
		level := slog.LevelInfo
		if route == api.PathMetrics || route == api.PathHealthz || route == api.PathReadyz || !h.accessLog {
			level = slog.LevelDebug // probes and scrapes, or no access log: only at --log-level debug
		}
		if !h.log.Enabled(r.Context(), level) {
			return
		}
		attrs := []slog.Attr{slog.String("request_id", requestID(r.Context())),
			slog.String("method", r.Method), slog.String("route", route),
			slog.String("repo", info.repo), slog.String("subject", info.subject),
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

// setLogRepo records the canonical or raw repo for the access log.
func setLogRepo(r *http.Request, repo string) {
	infoOf(r.Context()).repo = repo
}

// logRepo is what the access log records of a repo parameter: its
// canonical slug, or the raw value with any credentials removed.
func logRepo(repo string) string {
	if canon, err := server.CanonicalRepo(repo); err == nil {
		return canon
	}
	return server.RedactRepo(repo)
}

// routePattern returns chi's route pattern, or "unmatched".
func routePattern(r *http.Request) string {
	if rc := chi.RouteContext(r.Context()); rc != nil {
		if p := rc.RoutePattern(); p != "" {
			return p
		}
	}
	return "unmatched"
}

// recoverPanics turns a handler panic into a 500 and a log line with stack.
func (h *handler) recoverPanics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				h.log.Error("panic", "request_id", requestID(r.Context()), "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
				h.writeError(w, r, fmt.Errorf("panic: %v", v))
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// retryAfterSeconds rounds a delay up to whole seconds, at least 1.
func retryAfterSeconds(d time.Duration) int {
	s := int((d + time.Second - 1) / time.Second)
	if s < 1 {
		s = 1
	}
	return s
}
