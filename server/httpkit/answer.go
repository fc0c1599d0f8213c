package httpkit

import (
	"errors"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/teammem/teammem/server/auth"
)

// Wrap adapts an error-returning handler: its error becomes WriteError's
// answer.
func (m *Middleware) Wrap(fn func(http.ResponseWriter, *http.Request) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := fn(w, r); err != nil {
			m.WriteError(w, r, err)
		}
	}
}

// WriteError writes err as the error envelope (Translate's status and
// message), logs server failures and refusals (401, 403, 421), and counts
// 401, 412 and 429 answers.
func (m *Middleware) WriteError(w http.ResponseWriter, r *http.Request, err error) {
	f := Translate(err)
	id := RequestID(r.Context())
	if f.Status >= 500 {
		m.Log.LogAttrs(r.Context(), slog.LevelError, "request failed", slog.String("request_id", id),
			slog.String("route", RoutePattern(r)), slog.String("error", err.Error()))
	}
	if f.Status == http.StatusUnauthorized || f.Status == http.StatusForbidden || f.Status == http.StatusMisdirectedRequest {
		// Why, and from where; never the token.
		m.Log.LogAttrs(r.Context(), slog.LevelWarn, "request refused", slog.String("request_id", id),
			slog.Int("status", f.Status), slog.String("reason", err.Error()), slog.String("client", r.RemoteAddr),
			slog.String("route", RoutePattern(r)), slog.String("subject", refusedSubject(r, err)))
	}
	switch f.Status {
	case http.StatusUnauthorized:
		m.Meter.AuthFailure()
		w.Header().Set("WWW-Authenticate", m.challenge(r))
	case http.StatusPreconditionFailed:
		m.Meter.Conflict()
	case http.StatusTooManyRequests:
		m.Meter.RateLimited()
	}
	if f.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(f.RetryAfter))
	}
	WriteJSON(w, f.Status, ErrorEnvelope(f.Type, f.Message, f.Code, id, f.Details))
}

// refusedSubject is the caller's subject for a refusal's log line: the
// authenticated one, or for a verified but revoked token the one it names.
func refusedSubject(r *http.Request, err error) string {
	if s := Principal(r.Context()).Subject; s != "" {
		return s
	}
	var ae *auth.AuthError
	if errors.As(err, &ae) {
		return ae.Subject
	}
	return ""
}
