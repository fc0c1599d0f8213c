package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Sentinels matched with errors.Is against the errors the Client returns.
// An *APIError matches the sentinel of its status; ErrNotModified,
// ErrNetwork, ErrTimeout, ErrInvalidResponse and ErrEventsUnsupported are
// wrapped directly.
var (
	ErrBadRequest         = errors.New("bad request")                    // 400
	ErrUnauthorized       = errors.New("unauthorized")                   // 401
	ErrForbidden          = errors.New("forbidden")                      // 403
	ErrNotFound           = errors.New("not found")                      // 404
	ErrConflict           = errors.New("conflict")                       // 409
	ErrGone               = errors.New("gone")                           // 410 (since_too_old)
	ErrPreconditionFailed = errors.New("precondition failed")            // 412
	ErrTooLarge           = errors.New("too large")                      // 413
	ErrUnprocessable      = errors.New("unprocessable")                  // 422 (secret_detected)
	ErrRateLimited        = errors.New("rate limited")                   // 429
	ErrServer             = errors.New("server error")                   // 5xx
	ErrNotModified        = errors.New("not modified")                   // 304
	ErrNetwork            = errors.New("network error")                  // no HTTP answer
	ErrTimeout            = errors.New("request timed out")              // Options.Timeout or a transport timeout
	ErrInvalidResponse    = errors.New("invalid response")               // malformed or oversized 2xx body
	ErrEventsUnsupported  = errors.New("events stream not supported")    // 404/405/501 or not text/event-stream
	errRequestTimeout     = fmt.Errorf("client timeout: %w", ErrTimeout) // cause of the per-request deadline
)

// statusSentinels maps the statuses with a sentinel of their own.
var statusSentinels = map[int]error{
	http.StatusBadRequest:            ErrBadRequest,
	http.StatusUnauthorized:          ErrUnauthorized,
	http.StatusForbidden:             ErrForbidden,
	http.StatusNotFound:              ErrNotFound,
	http.StatusConflict:              ErrConflict,
	http.StatusGone:                  ErrGone,
	http.StatusPreconditionFailed:    ErrPreconditionFailed,
	http.StatusRequestEntityTooLarge: ErrTooLarge,
	http.StatusUnprocessableEntity:   ErrUnprocessable,
	http.StatusTooManyRequests:       ErrRateLimited,
}

// APIError is a non-2xx answer of the server, decoded from the error envelope
// of protocol §5 when there is one. A body that is not an envelope (HTML from
// a proxy, truncated JSON, wrong types) still yields an APIError whose Type
// and Message derive from the status.
type APIError struct {
	// Status is the HTTP status code.
	Status int
	// Type is error.type, such as "conflict"; derived from Status when absent.
	Type string
	// Code is details.error_code, such as "etag_mismatch"; may be empty.
	Code string
	// Message is error.message, one sentence meant for a person.
	Message string
	// Details is error.details as decoded; numbers are json.Number.
	Details map[string]any
	// RetryAfter is the Retry-After header (seconds or HTTP date), 0 if absent.
	RetryAfter time.Duration
	// RequestID is details.request_id, else the X-Request-ID header.
	RequestID string
}

// Error formats the status, type, code, message and request id.
func (e *APIError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "server answered %d %s", e.Status, e.Type)
	if e.Code != "" {
		fmt.Fprintf(&b, " (%s)", e.Code)
	}
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	}
	if e.RequestID != "" {
		fmt.Fprintf(&b, " [request %s]", e.RequestID)
	}
	return b.String()
}

// Is reports whether target is the sentinel of e's status (ErrServer for
// every 5xx).
func (e *APIError) Is(target error) bool {
	if target == ErrServer {
		return e.Status >= 500 && e.Status <= 599
	}
	s, ok := statusSentinels[e.Status]
	return ok && s == target
}

// CurrentChecksum returns details.checksum: on a 412 etag_mismatch, the
// server's current dataset checksum. Empty when absent.
func (e *APIError) CurrentChecksum() string { return e.DetailString("checksum") }

// EntryLimit returns details.max_entries and details.received_entries of a
// 413 team_memory_too_many_entries; ok is false when either is missing.
func (e *APIError) EntryLimit() (max, received int64, ok bool) {
	max, okMax := e.DetailInt("max_entries")
	received, okRecv := e.DetailInt("received_entries")
	return max, received, okMax && okRecv
}

// SecretFinding names the entry and the rule of a 422 secret_detected. The
// secret itself is never sent by the server.
type SecretFinding struct {
	Key    string // the entry's key
	RuleID string // the scanner rule, such as "github-pat"
	Label  string // a human label, such as "GitHub personal access token"
}

// Secret returns the finding of a 422 secret_detected; ok is false for any
// other error.
func (e *APIError) Secret() (f SecretFinding, ok bool) {
	if e.Code != "secret_detected" {
		return SecretFinding{}, false
	}
	return SecretFinding{
		Key:    e.DetailString("key"),
		RuleID: e.DetailString("rule_id"),
		Label:  e.DetailString("label"),
	}, true
}

// IsRetryable reports whether repeating the request later may succeed: 429,
// 5xx, network errors and timeouts. Cancellation of the caller's context and
// every other status are not retryable.
func IsRetryable(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) {
		return false
	}
	for _, s := range []error{ErrRateLimited, ErrServer, ErrNetwork, ErrTimeout} {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}

// IsUnreachable reports whether err is a request that got no answer from
// the server: no connection (refused, unknown host, reset) or a timeout.
// An answer refusing the request (401, 403, 5xx) is not.
func IsUnreachable(err error) bool {
	return errors.Is(err, ErrNetwork) || errors.Is(err, ErrTimeout)
}

// RetryAfter returns the Retry-After delay carried by an *APIError in err's
// chain, or 0.
func RetryAfter(err error) time.Duration {
	var e *APIError
	if errors.As(err, &e) {
		return e.RetryAfter
	}
	return 0
}
