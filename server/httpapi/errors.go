package httpapi

import (
	"errors"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/teammem/teammem/server/auth"
	"github.com/teammem/teammem/server/httpkit"
)

// writeError writes err as the error envelope and logs server failures.
func (h *handler) writeError(w http.ResponseWriter, r *http.Request, err error) {
	f := httpkit.Translate(err)
	id := httpkit.RequestID(r.Context())
	if f.Status >= 500 {
		h.log.LogAttrs(r.Context(), slog.LevelError, "request failed", slog.String("request_id", id),
			slog.String("route", httpkit.RoutePattern(r)), slog.String("error", err.Error()))
	}
	if f.Status == http.StatusUnauthorized || f.Status == http.StatusForbidden {
		// Why, and from where; never the token.
		h.log.LogAttrs(r.Context(), slog.LevelWarn, "request refused", slog.String("request_id", id),
			slog.Int("status", f.Status), slog.String("reason", err.Error()), slog.String("client", r.RemoteAddr),
			slog.String("route", httpkit.RoutePattern(r)), slog.String("subject", refusedSubject(r, err)))
	}
	switch f.Status {
	case http.StatusUnauthorized:
		h.metrics.AuthFailure()
		w.Header().Set("WWW-Authenticate", `Bearer realm="teammem"`)
	case http.StatusPreconditionFailed:
		h.metrics.Conflict()
	case http.StatusTooManyRequests:
		h.metrics.RateLimited()
	}
	if f.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(f.RetryAfter))
	}
	httpkit.WriteJSON(w, f.Status, httpkit.ErrorEnvelope(f.Type, f.Message, f.Code, id, f.Details))
}

// refusedSubject is the caller's subject for a refusal's log line: the
// authenticated one, or for a verified but revoked token the one it names.
func refusedSubject(r *http.Request, err error) string {
	if s := principal(r.Context()).Subject; s != "" {
		return s
	}
	var ae *auth.AuthError
	if errors.As(err, &ae) {
		return ae.Subject
	}
	return ""
}
