package httpkit_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/auth"
	"github.com/teammem/teammem/server/httpkit"
)

// internal is what a store's or driver's error may say: never for a caller.
const internal = "dial tcp 10.9.8.7:5432: password authentication failed for user teammem (hunter2)"

// TestTranslate: every error the domain and the HTTP layer return, as
// they return it (wrapped), maps to one status, type, code and the details
// a client acts on.
func TestTranslate(t *testing.T) {
	wrap := func(err error) error { return fmt.Errorf("put acme/api: %w", err) }
	tests := []struct {
		name       string
		err        error
		status     int
		typ, code  string
		details    map[string]any
		retryAfter int
		message    string // a part of the message, when it carries one
	}{
		{"invalid body", wrap(server.InvalidBody("the body is not JSON")), http.StatusBadRequest, api.TypeInvalidRequest,
			string(server.ReasonInvalidBody), nil, 0, "the body is not JSON"},
		{"invalid content", wrap(server.InvalidContent("a.md")), http.StatusBadRequest, api.TypeInvalidRequest,
			string(server.ReasonInvalidContent), map[string]any{"key": "a.md"}, 0, ""},
		{"unauthenticated", wrap(&auth.AuthError{Reason: "token expired"}), http.StatusUnauthorized, api.TypeAuthentication,
			api.CodeUnauthenticated, nil, 0, "token expired"},
		{"forbidden", wrap(&server.ForbiddenError{Subject: "ana", Repo: "acme/api", Need: server.PermWrite}), http.StatusForbidden,
			api.TypePermission, api.CodeForbidden, nil, 0, "acme/api"},
		{"precondition", wrap(&server.PreconditionError{Checksum: "sha256:ab"}), http.StatusPreconditionFailed, api.TypeConflict,
			api.CodeETagMismatch, map[string]any{"checksum": "sha256:ab"}, 0, ""},
		{"too many entries", wrap(&server.TooManyEntriesError{Max: 2, Received: 3}), http.StatusRequestEntityTooLarge,
			api.TypeInvalidRequest, api.CodeTooManyEntries, map[string]any{"max_entries": 2, "received_entries": 3}, 0, ""},
		// No error code: the stock client clears its stop after a local
		// delete only for a code-less 413.
		{"repository too large", wrap(&server.RepoTooLargeError{Max: 10, Bytes: 11}), http.StatusRequestEntityTooLarge,
			api.TypeInvalidRequest, "", map[string]any{"reason": api.ReasonRepoTooLarge, "max_bytes": int64(10), "bytes": int64(11)}, 0, ""},
		{"key collision", wrap(&server.KeyCollisionError{Key: "A.md", Existing: "a.md"}), http.StatusConflict, api.TypeConflict,
			api.CodeKeyCollision, map[string]any{"key": "A.md", "existing": "a.md"}, 0, "A.md"},
		{"not found", wrap(server.ErrNotFound), http.StatusNotFound, api.TypeNotFound, api.CodeNotFound, nil, 0, ""},
		{"not found, said", httpkit.NotFound("no such page"), http.StatusNotFound, api.TypeNotFound, api.CodeNotFound, nil, 0, "no such page"},
		{"since too old", wrap(server.ErrSinceTooOld), http.StatusGone, api.TypeInvalidRequest, api.CodeSinceTooOld, nil, 0, ""},
		{"body too large", &httpkit.RequestTooLargeError{Limit: 64}, http.StatusRequestEntityTooLarge, api.TypeInvalidRequest, "",
			map[string]any{"reason": api.ReasonRequestTooLarge, "max_bytes": int64(64)}, 0, ""},
		{"too many streams", fmt.Errorf("%w (4)", server.ErrTooManyStreams), http.StatusTooManyRequests, api.TypeRateLimit,
			api.CodeTooManyStreams, nil, 30, ""},
		{"rate limited", httpkit.RateLimitedError{RetryAfter: 7}, http.StatusTooManyRequests, api.TypeRateLimit,
			api.CodeRateLimited, nil, 7, ""},
		{"method not allowed", httpkit.ErrMethodNotAllowed, http.StatusMethodNotAllowed, api.TypeInvalidRequest,
			api.CodeMethodNotAllowed, nil, 0, ""},
		{"misdirected", &httpkit.MisdirectedError{Host: "rebind.attacker.example:8080"}, http.StatusMisdirectedRequest,
			api.TypeInvalidRequest, api.CodeMisdirectedRequest, nil, 0, `"rebind.attacker.example:8080"`},
		{"cross-site", &httpkit.CrossSiteError{Origin: "http://attacker.example"}, http.StatusForbidden, api.TypePermission,
			api.CodeCrossSite, nil, 0, ""},
		{"form POST", &httpkit.FormBodyError{ContentType: "text/plain"}, http.StatusUnsupportedMediaType, api.TypeInvalidRequest,
			api.CodeUnsupportedMediaType, nil, 0, "application/json"},
		{"canceled", wrap(context.Canceled), httpkit.StatusClientClosed, api.TypeInvalidRequest, api.CodeCanceled, nil, 0, ""},
		{"unavailable", fmt.Errorf("%s: %w", internal, server.ErrUnavailable), http.StatusServiceUnavailable, api.TypeAPI,
			api.CodeUnavailable, nil, 1, ""},
		{"shutting down", wrap(server.ErrShuttingDown), http.StatusServiceUnavailable, api.TypeAPI, api.CodeUnavailable, nil, 1, ""},
		{"deadline", fmt.Errorf("%s: %w", internal, context.DeadlineExceeded), http.StatusServiceUnavailable, api.TypeAPI,
			api.CodeUnavailable, nil, 1, ""},
		{"anything else", errors.New(internal), http.StatusInternalServerError, api.TypeAPI, api.CodeInternal, nil, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := httpkit.Translate(tt.err)
			if f.Status != tt.status || f.Type != tt.typ || f.Code != tt.code || f.RetryAfter != tt.retryAfter {
				t.Errorf("Translate = %d %s %q retry %d; want %d %s %q retry %d",
					f.Status, f.Type, f.Code, f.RetryAfter, tt.status, tt.typ, tt.code, tt.retryAfter)
			}
			if diff := cmp.Diff(tt.details, f.Details); diff != "" {
				t.Errorf("details (-want +got):\n%s", diff)
			}
			if f.Message == "" || !strings.Contains(f.Message, tt.message) {
				t.Errorf("message %q; want one saying %q", f.Message, tt.message)
			}
			if f.Status >= 500 {
				noLeak(t, f.Message, f.Details)
			}
		})
	}
}

// noLeak fails when a message or details say anything of internal.
func noLeak(t *testing.T, message string, details map[string]any) {
	t.Helper()
	for _, part := range []string{"10.9.8.7", "password", "hunter2", "teammem (", "dial tcp"} {
		if strings.Contains(message, part) || strings.Contains(fmt.Sprint(details), part) {
			t.Errorf("a 5xx answer says %q: %q %v", part, message, details)
		}
	}
}

// TestErrorEnvelope: the envelope carries the details, the code and the
// request id, and leaves the caller's map alone.
func TestErrorEnvelope(t *testing.T) {
	extra := map[string]any{"key": "a.md"}
	env := httpkit.ErrorEnvelope(api.TypeConflict, "changed", api.CodeETagMismatch, "req-1", extra)
	want := api.ErrorEnvelope{Error: api.ErrorBody{Type: api.TypeConflict, Message: "changed",
		Details: map[string]any{"key": "a.md", "error_code": api.CodeETagMismatch, "request_id": "req-1"}}}
	if diff := cmp.Diff(want, env); diff != "" {
		t.Errorf("envelope (-want +got):\n%s", diff)
	}
	if len(extra) != 1 {
		t.Errorf("the caller's details changed: %v", extra)
	}
	if _, ok := httpkit.ErrorEnvelope(api.TypeAPI, "x", "", "req-2", nil).Error.Details["error_code"]; ok {
		t.Error("an envelope without a code names one")
	}
}
