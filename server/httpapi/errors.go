package httpapi

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/auth"
)

// errRequestTooLarge is a request body over the configured limit.
type errRequestTooLarge struct{ limit int64 }

func (e *errRequestTooLarge) Error() string {
	return fmt.Sprintf("request body larger than %d bytes", e.limit)
}

// errMethodNotAllowed is a method the route does not serve.
var errMethodNotAllowed = errors.New("method not allowed")

// errRateLimited is a caller over its request rate.
type errRateLimited struct{ retryAfter int }

func (e errRateLimited) Error() string { return "rate limited" }

// statusClientClosed is logged (never seen by a client that went away) for
// requests canceled by their client, as nginx does.
const statusClientClosed = 499

// failure is an error translated for the wire.
type failure struct {
	status     int
	typ        string
	code       string
	message    string
	details    map[string]any
	retryAfter int // seconds; 0 = no header
}

// translate is the one table from errors to HTTP statuses and envelopes.
// Internal errors never reach the caller: their message is generic.
func translate(err error) failure {
	var (
		reqErr  *server.RequestError
		forbid  *server.ForbiddenError
		pre     *server.PreconditionError
		tooMany *server.TooManyEntriesError
		collide *server.KeyCollisionError
		rateErr errRateLimited
		repoBig *server.RepoTooLargeError
		bodyBig *errRequestTooLarge
	)
	switch {
	case errors.As(err, &reqErr):
		return failure{status: http.StatusBadRequest, typ: api.TypeInvalidRequest, code: string(reqErr.Reason), message: reqErr.Message, details: reqErr.Details}
	case errors.Is(err, server.ErrUnauthenticated):
		return failure{status: http.StatusUnauthorized, typ: api.TypeAuthentication, code: api.CodeUnauthenticated,
			message: "Authentication failed: " + err.Error() + "."}
	case errors.As(err, &forbid):
		return failure{status: http.StatusForbidden, typ: api.TypePermission, code: api.CodeForbidden,
			message: "This token has no " + forbid.Need.String() + " access to repository " + forbid.Repo + "; ask an admin for a grant."}
	case errors.As(err, &pre):
		return failure{status: http.StatusPreconditionFailed, typ: api.TypeConflict, code: api.CodeETagMismatch,
			message: "The repository changed since you read it (If-Match or If-None-Match does not hold); fetch it again and retry.",
			details: map[string]any{"checksum": pre.Checksum}}
	case errors.As(err, &tooMany):
		return failure{status: http.StatusRequestEntityTooLarge, typ: api.TypeInvalidRequest, code: api.CodeTooManyEntries,
			message: "The push would leave more entries than the repository may hold; delete some or raise the limit.",
			details: map[string]any{"max_entries": tooMany.Max, "received_entries": tooMany.Received}}
	case errors.As(err, &repoBig):
		// No error_code: the stock client clears its stop after a local
		// delete only for a code-less 413 (protocol §4).
		return failure{status: http.StatusRequestEntityTooLarge, typ: api.TypeInvalidRequest,
			message: "The push would make the repository larger than its byte limit; shrink or delete entries.",
			details: map[string]any{"reason": api.ReasonRepoTooLarge, "max_bytes": repoBig.Max, "bytes": repoBig.Bytes}}
	case errors.As(err, &collide):
		return failure{status: http.StatusConflict, typ: api.TypeConflict, code: api.CodeKeyCollision,
			message: collide.Error() + "; rename one so they differ by more than case.",
			details: map[string]any{"key": collide.Key, "existing": collide.Existing}}
	case errors.Is(err, server.ErrNotFound):
		return failure{status: http.StatusNotFound, typ: api.TypeNotFound, code: api.CodeNotFound, message: "Not found: " + err.Error() + "."}
	case errors.Is(err, server.ErrSinceTooOld):
		return failure{status: http.StatusGone, typ: api.TypeInvalidRequest, code: api.CodeSinceTooOld,
			message: "History for that version was pruned; pull the repository in full."}
	case errors.As(err, &bodyBig):
		return failure{status: http.StatusRequestEntityTooLarge, typ: api.TypeInvalidRequest,
			message: "The request body is larger than the server accepts; push in smaller batches.",
			details: map[string]any{"reason": api.ReasonRequestTooLarge, "max_bytes": bodyBig.limit}}
	case errors.Is(err, server.ErrTooManyStreams):
		return failure{status: http.StatusTooManyRequests, typ: api.TypeRateLimit, code: api.CodeTooManyStreams,
			message:    "This token has as many event streams open as the server allows; close some or retry after the delay in Retry-After.",
			retryAfter: 30}
	case errors.As(err, &rateErr):
		return failure{status: http.StatusTooManyRequests, typ: api.TypeRateLimit, code: api.CodeRateLimited,
			message: "Too many requests for this token; retry after the delay in Retry-After.", retryAfter: rateErr.retryAfter}
	case errors.Is(err, errMethodNotAllowed):
		return failure{status: http.StatusMethodNotAllowed, typ: api.TypeInvalidRequest, code: api.CodeMethodNotAllowed,
			message: "This method is not allowed on this resource."}
	case errors.Is(err, context.Canceled):
		return failure{status: statusClientClosed, typ: api.TypeInvalidRequest, code: api.CodeCanceled,
			message: "The request was canceled by the client."}
	case errors.Is(err, server.ErrUnavailable), errors.Is(err, context.DeadlineExceeded):
		return failure{status: http.StatusServiceUnavailable, typ: api.TypeAPI, code: api.CodeUnavailable,
			message: "The server's storage is unavailable right now; retry shortly.", retryAfter: 1}
	}
	return failure{status: http.StatusInternalServerError, typ: api.TypeAPI, code: api.CodeInternal,
		message: "The server failed to handle the request; the request id identifies it in the server's logs."}
}

// writeError writes err as the error envelope and logs server failures.
func (h *handler) writeError(w http.ResponseWriter, r *http.Request, err error) {
	f := translate(err)
	id := requestID(r.Context())
	if f.status >= 500 {
		h.log.LogAttrs(r.Context(), slog.LevelError, "request failed", slog.String("request_id", id),
			slog.String("route", routePattern(r)), slog.String("error", err.Error()))
	}
	if f.status == http.StatusUnauthorized || f.status == http.StatusForbidden {
		// Why, and from where; never the token.
		h.log.LogAttrs(r.Context(), slog.LevelWarn, "request refused", slog.String("request_id", id),
			slog.Int("status", f.status), slog.String("reason", err.Error()), slog.String("client", r.RemoteAddr),
			slog.String("route", routePattern(r)), slog.String("subject", refusedSubject(r, err)))
	}
	switch f.status {
	case http.StatusUnauthorized:
		h.metrics.AuthFailure()
		w.Header().Set("WWW-Authenticate", `Bearer realm="teammem"`)
	case http.StatusPreconditionFailed:
		h.metrics.Conflict()
	case http.StatusTooManyRequests:
		h.metrics.RateLimited()
	}
	if f.retryAfter > 0 {
		w.Header().Set("Retry-After", itoa(int64(f.retryAfter)))
	}
	writeJSON(w, f.status, errorEnvelope(f.typ, f.message, f.code, id, f.details))
}

// errorEnvelope is the error body every refusal carries: details holds
// extra's fields, the error code (when there is one) and the request id.
func errorEnvelope(typ, message, code, id string, extra map[string]any) api.ErrorEnvelope {
	details := make(map[string]any, len(extra)+2)
	for k, v := range extra {
		details[k] = v
	}
	if code != "" {
		details["error_code"] = code
	}
	details["request_id"] = id
	return api.ErrorEnvelope{Error: api.ErrorBody{Type: typ, Message: message, Details: details}}
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
