package httpkit

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/server"
)

// RequestTooLargeError is a request body over the configured limit.
type RequestTooLargeError struct{ Limit int64 }

func (e *RequestTooLargeError) Error() string {
	return fmt.Sprintf("request body larger than %d bytes", e.Limit)
}

// ErrMethodNotAllowed is a method the route does not serve.
var ErrMethodNotAllowed = errors.New("method not allowed")

// RateLimitedError is a caller over its request rate.
type RateLimitedError struct{ RetryAfter int }

func (e RateLimitedError) Error() string { return "rate limited" }

// StatusClientClosed is logged (never seen by a client that went away) for
// requests canceled by their client, as nginx does.
const StatusClientClosed = 499

// NotFound is a plain not-found error with a message.
func NotFound(msg string) error { return &notFoundError{msg} }

type notFoundError struct{ msg string }

func (e *notFoundError) Error() string { return e.msg }
func (e *notFoundError) Unwrap() error { return server.ErrNotFound }

// Failure is an error translated for the wire.
type Failure struct {
	Status     int
	Type       string
	Code       string
	Message    string
	Details    map[string]any
	RetryAfter int // seconds; 0 = no header
}

// Translate is the one table from errors to HTTP statuses and envelopes.
// Internal errors never reach the caller: their message is generic.
func Translate(err error) Failure {
	var (
		reqErr  *server.RequestError
		forbid  *server.ForbiddenError
		pre     *server.PreconditionError
		tooMany *server.TooManyEntriesError
		collide *server.KeyCollisionError
		rateErr RateLimitedError
		repoBig *server.RepoTooLargeError
		bodyBig *RequestTooLargeError
		misdir  *MisdirectedError
		cross   *CrossSiteError
		form    *FormBodyError
		merge   *server.MergeConflictError
		decided *server.ProposalStateError
	)
	switch {
	case errors.As(err, &reqErr):
		return Failure{Status: http.StatusBadRequest, Type: api.TypeInvalidRequest, Code: string(reqErr.Reason), Message: reqErr.Message, Details: reqErr.Details}
	case errors.Is(err, server.ErrUnauthenticated):
		return Failure{Status: http.StatusUnauthorized, Type: api.TypeAuthentication, Code: api.CodeUnauthenticated,
			Message: "Authentication failed: " + err.Error() + "."}
	case errors.As(err, &forbid) && forbid.Why != "":
		return Failure{Status: http.StatusForbidden, Type: api.TypePermission, Code: api.CodeForbidden,
			Message: "Forbidden: " + forbid.Why + "."}
	case errors.As(err, &forbid):
		return Failure{Status: http.StatusForbidden, Type: api.TypePermission, Code: api.CodeForbidden,
			Message: "This token has no " + forbid.Need.String() + " access to repository " + forbid.Repo + "; ask an admin for a grant."}
	case errors.As(err, &pre):
		return Failure{Status: http.StatusPreconditionFailed, Type: api.TypeConflict, Code: api.CodeETagMismatch,
			Message: "The repository changed since you read it (If-Match or If-None-Match does not hold); fetch it again and retry.",
			Details: map[string]any{"checksum": pre.Checksum}}
	case errors.As(err, &tooMany):
		return Failure{Status: http.StatusRequestEntityTooLarge, Type: api.TypeInvalidRequest, Code: api.CodeTooManyEntries,
			Message: "The push would leave more entries than the repository may hold; delete some or raise the limit.",
			Details: map[string]any{"max_entries": tooMany.Max, "received_entries": tooMany.Received}}
	case errors.As(err, &repoBig):
		// No error_code: the stock client clears its stop after a local
		// delete only for a code-less 413 (protocol §4).
		return Failure{Status: http.StatusRequestEntityTooLarge, Type: api.TypeInvalidRequest,
			Message: "The push would make the repository larger than its byte limit; shrink or delete entries.",
			Details: map[string]any{"reason": api.ReasonRepoTooLarge, "max_bytes": repoBig.Max, "bytes": repoBig.Bytes}}
	case errors.As(err, &collide):
		return Failure{Status: http.StatusConflict, Type: api.TypeConflict, Code: api.CodeKeyCollision,
			Message: collide.Error() + "; rename one so they differ by more than case.",
			Details: map[string]any{"key": collide.Key, "existing": collide.Existing}}
	case errors.As(err, &merge):
		return Failure{Status: http.StatusConflict, Type: api.TypeConflict, Code: api.CodeMergeConflict,
			Message: merge.Error() + ".", Details: map[string]any{"keys": merge.Keys}}
	case errors.As(err, &decided):
		return Failure{Status: http.StatusConflict, Type: api.TypeConflict, Code: api.CodeProposalDecided,
			Message: decided.Error() + ".", Details: map[string]any{"state": string(decided.State)}}
	case errors.Is(err, server.ErrNotFound):
		return Failure{Status: http.StatusNotFound, Type: api.TypeNotFound, Code: api.CodeNotFound, Message: "Not found: " + err.Error() + "."}
	case errors.Is(err, server.ErrSinceTooOld):
		return Failure{Status: http.StatusGone, Type: api.TypeInvalidRequest, Code: api.CodeSinceTooOld,
			Message: "History for that version was pruned; pull the repository in full."}
	case errors.As(err, &bodyBig):
		return Failure{Status: http.StatusRequestEntityTooLarge, Type: api.TypeInvalidRequest,
			Message: "The request body is larger than the server accepts; push in smaller batches.",
			Details: map[string]any{"reason": api.ReasonRequestTooLarge, "max_bytes": bodyBig.Limit}}
	case errors.Is(err, server.ErrTooManyStreams):
		return Failure{Status: http.StatusTooManyRequests, Type: api.TypeRateLimit, Code: api.CodeTooManyStreams,
			Message:    "This token has as many event streams open as the server allows; close some or retry after the delay in Retry-After.",
			RetryAfter: 30}
	case errors.As(err, &rateErr):
		return Failure{Status: http.StatusTooManyRequests, Type: api.TypeRateLimit, Code: api.CodeRateLimited,
			Message: "Too many requests for this token; retry after the delay in Retry-After.", RetryAfter: rateErr.RetryAfter}
	case errors.As(err, &misdir):
		return Failure{Status: http.StatusMisdirectedRequest, Type: api.TypeInvalidRequest, Code: api.CodeMisdirectedRequest,
			Message: "This server does not answer to the name " + strconv.Quote(clip(misdir.Host)) + "; address it by its IP address, localhost, or a name given to it with --public-host."}
	case errors.As(err, &cross):
		return Failure{Status: http.StatusForbidden, Type: api.TypePermission, Code: api.CodeCrossSite,
			Message: "Requests from web pages of another origin are refused; call the API from a client, not from a page."}
	case errors.As(err, &form):
		return Failure{Status: http.StatusUnsupportedMediaType, Type: api.TypeInvalidRequest, Code: api.CodeUnsupportedMediaType,
			Message: "Send the body as application/json (Content-Type: application/json); form and text/plain POSTs are refused."}
	case errors.Is(err, ErrMethodNotAllowed):
		return Failure{Status: http.StatusMethodNotAllowed, Type: api.TypeInvalidRequest, Code: api.CodeMethodNotAllowed,
			Message: "This method is not allowed on this resource."}
	case errors.Is(err, context.Canceled):
		return Failure{Status: StatusClientClosed, Type: api.TypeInvalidRequest, Code: api.CodeCanceled,
			Message: "The request was canceled by the client."}
	case errors.Is(err, server.ErrNotImplemented):
		return Failure{Status: http.StatusNotImplemented, Type: api.TypeAPI, Code: api.CodeNotImplemented,
			Message: "This server cannot do that yet: " + err.Error() + "."}
	case errors.Is(err, server.ErrUnavailable), errors.Is(err, context.DeadlineExceeded):
		return Failure{Status: http.StatusServiceUnavailable, Type: api.TypeAPI, Code: api.CodeUnavailable,
			Message: "The server's storage is unavailable right now; retry shortly.", RetryAfter: 1}
	}
	return Failure{Status: http.StatusInternalServerError, Type: api.TypeAPI, Code: api.CodeInternal,
		Message: "The server failed to handle the request; the request id identifies it in the server's logs."}
}

// ErrorEnvelope is the error body every refusal carries: details holds
// extra's fields, the error code (when there is one) and the request id.
func ErrorEnvelope(typ, message, code, id string, extra map[string]any) api.ErrorEnvelope {
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
