package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/client"
)

// canned is a response served verbatim.
type canned struct {
	status int
	header map[string]string
	body   string
}

// serveCanned starts a server answering every request with resp.
func serveCanned(t *testing.T, resp canned) *client.Client {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for k, v := range resp.header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(resp.status)
		io.WriteString(w, resp.body)
	}))
	t.Cleanup(srv.Close)
	return newClient(t, srv.URL, "tok")
}

// envelope renders an error envelope.
func envelope(status int, typ, code, msg string, extra string) string {
	return fmt.Sprintf(`{"error":{"type":%q,"message":%q,"details":{"error_code":%q,"request_id":"req-%d"%s}}}`, typ, msg, code, status, extra)
}

func TestErrorMapping(t *testing.T) {
	tests := []struct {
		name      string
		resp      canned
		sentinel  error
		want      client.APIError
		retryable bool
	}{
		{"400", canned{400, nil, envelope(400, api.TypeInvalidRequest, api.CodeInvalidKey, "Key ../x is invalid.", `,"key":"../x"`)},
			client.ErrBadRequest, client.APIError{Status: 400, Type: api.TypeInvalidRequest, Code: api.CodeInvalidKey, Message: "Key ../x is invalid.", RequestID: "req-400"}, false},
		{"401", canned{401, nil, envelope(401, api.TypeAuthentication, api.CodeUnauthenticated, "Token expired.", "")},
			client.ErrUnauthorized, client.APIError{Status: 401, Type: api.TypeAuthentication, Code: api.CodeUnauthenticated, Message: "Token expired.", RequestID: "req-401"}, false},
		{"403", canned{403, nil, envelope(403, api.TypePermission, api.CodeForbidden, "No grant.", "")},
			client.ErrForbidden, client.APIError{Status: 403, Type: api.TypePermission, Code: api.CodeForbidden, Message: "No grant.", RequestID: "req-403"}, false},
		{"404", canned{404, nil, envelope(404, api.TypeNotFound, api.CodeNotFound, "No such repo.", "")},
			client.ErrNotFound, client.APIError{Status: 404, Type: api.TypeNotFound, Code: api.CodeNotFound, Message: "No such repo.", RequestID: "req-404"}, false},
		{"409", canned{409, nil, envelope(409, api.TypeConflict, api.CodeKeyCollision, "Keys collide.", "")},
			client.ErrConflict, client.APIError{Status: 409, Type: api.TypeConflict, Code: api.CodeKeyCollision, Message: "Keys collide.", RequestID: "req-409"}, false},
		{"410", canned{410, nil, envelope(410, api.TypeInvalidRequest, api.CodeSinceTooOld, "Pruned.", "")},
			client.ErrGone, client.APIError{Status: 410, Type: api.TypeInvalidRequest, Code: api.CodeSinceTooOld, Message: "Pruned.", RequestID: "req-410"}, false},
		{"412", canned{412, nil, envelope(412, api.TypeConflict, api.CodeETagMismatch, "Changed.", `,"checksum":"sha256:cur"`)},
			client.ErrPreconditionFailed, client.APIError{Status: 412, Type: api.TypeConflict, Code: api.CodeETagMismatch, Message: "Changed.", RequestID: "req-412"}, false},
		{"413 body", canned{413, nil, envelope(413, api.TypeInvalidRequest, api.CodeRequestTooLarge, "Body too large.", "")},
			client.ErrTooLarge, client.APIError{Status: 413, Type: api.TypeInvalidRequest, Code: api.CodeRequestTooLarge, Message: "Body too large.", RequestID: "req-413"}, false},
		{"422", canned{422, nil, envelope(422, api.TypeInvalidRequest, api.CodeSecretDetected, "Secret.", `,"key":"k","rule_id":"r","label":"L"`)},
			client.ErrUnprocessable, client.APIError{Status: 422, Type: api.TypeInvalidRequest, Code: api.CodeSecretDetected, Message: "Secret.", RequestID: "req-422"}, false},
		{"429 seconds", canned{429, map[string]string{"Retry-After": "7"}, envelope(429, api.TypeRateLimit, api.CodeRateLimited, "Slow down.", "")},
			client.ErrRateLimited, client.APIError{Status: 429, Type: api.TypeRateLimit, Code: api.CodeRateLimited, Message: "Slow down.", RequestID: "req-429", RetryAfter: 7 * time.Second}, true},
		{"500", canned{500, nil, envelope(500, api.TypeAPI, api.CodeInternal, "Internal error.", "")},
			client.ErrServer, client.APIError{Status: 500, Type: api.TypeAPI, Code: api.CodeInternal, Message: "Internal error.", RequestID: "req-500"}, true},
		{"503 retry after", canned{503, map[string]string{"Retry-After": "30", "X-Request-ID": "hdr-id"}, `{"error":{"type":"api_error","message":"Store unreachable.","details":{"error_code":"unavailable"}}}`},
			client.ErrServer, client.APIError{Status: 503, Type: api.TypeAPI, Code: api.CodeUnavailable, Message: "Store unreachable.", RequestID: "hdr-id", RetryAfter: 30 * time.Second}, true},
		{"502 html from a proxy", canned{502, map[string]string{"Content-Type": "text/html"}, "<html><body>Bad gateway</body></html>"},
			client.ErrServer, client.APIError{Status: 502, Type: api.TypeAPI, Message: "502 Bad Gateway"}, true},
		{"500 plain text", canned{500, nil, "database\x00 exploded\n"},
			client.ErrServer, client.APIError{Status: 500, Type: api.TypeAPI, Message: "500 Internal Server Error: database  exploded"}, true},
		{"404 truncated JSON", canned{404, nil, `{"error":{"type":"not_found_error","mess`},
			client.ErrNotFound, client.APIError{Status: 404, Type: api.TypeNotFound, Message: "404 Not Found"}, false},
		{"403 wrong types", canned{403, nil, `{"error":{"type":7,"message":["x"],"details":"nope"}}`},
			client.ErrForbidden, client.APIError{Status: 403, Type: api.TypePermission, Message: "403 Forbidden"}, false},
		{"409 error is a string", canned{409, nil, `{"error":"already exists"}`},
			client.ErrConflict, client.APIError{Status: 409, Type: api.TypeConflict, Message: "already exists"}, false},
		{"429 empty body bad retry-after", canned{429, map[string]string{"Retry-After": "soon"}, ""},
			client.ErrRateLimited, client.APIError{Status: 429, Type: api.TypeRateLimit, Message: "429 Too Many Requests"}, true},
		{"418 unknown", canned{418, nil, "{}"},
			nil, client.APIError{Status: 418, Type: "http_error", Message: "418 I'm a teapot"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := serveCanned(t, tt.resp)
			_, err := c.Hashes(context.Background(), "acme/api")
			var e *client.APIError
			if !errors.As(err, &e) {
				t.Fatalf("error %v (%T) is not an *APIError", err, err)
			}
			if tt.sentinel != nil && !errors.Is(err, tt.sentinel) {
				t.Errorf("errors.Is(%v, %v) = false", err, tt.sentinel)
			}
			if diff := cmp.Diff(tt.want, *e, cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Details" }, cmp.Ignore())); diff != "" {
				t.Errorf("APIError (-want +got):\n%s", diff)
			}
			if got := client.IsRetryable(err); got != tt.retryable {
				t.Errorf("IsRetryable = %v, want %v", got, tt.retryable)
			}
			if got := client.RetryAfter(err); got != tt.want.RetryAfter {
				t.Errorf("RetryAfter = %v, want %v", got, tt.want.RetryAfter)
			}
			if strings.Contains(err.Error(), "invalid character") || strings.Contains(err.Error(), "unexpected end") {
				t.Errorf("a JSON parse error surfaced: %v", err)
			}
		})
	}
}

// TestSentinelsAreExclusive checks an APIError matches only its own sentinel.
func TestSentinelsAreExclusive(t *testing.T) {
	sentinels := map[int]error{400: client.ErrBadRequest, 401: client.ErrUnauthorized, 403: client.ErrForbidden,
		404: client.ErrNotFound, 409: client.ErrConflict, 410: client.ErrGone, 412: client.ErrPreconditionFailed,
		413: client.ErrTooLarge, 422: client.ErrUnprocessable, 429: client.ErrRateLimited, 503: client.ErrServer}
	for status := range sentinels {
		e := &client.APIError{Status: status}
		for other, s := range sentinels {
			if got := errors.Is(e, s); got != (other == status) {
				t.Errorf("errors.Is(%d, %v) = %v", status, s, got)
			}
		}
	}
}

func TestRetryAfterHTTPDate(t *testing.T) {
	date := time.Now().Add(2 * time.Hour).UTC().Format(http.TimeFormat)
	c := serveCanned(t, canned{503, map[string]string{"Retry-After": date}, ""})
	_, err := c.Repos(context.Background())
	// The date has a one-second resolution and the clock moves on: bounds,
	// not an exact figure.
	if got := client.RetryAfter(err); got <= 119*time.Minute || got > 2*time.Hour {
		t.Errorf("RetryAfter = %v, want about 2h", got)
	}
	past := time.Now().Add(-time.Hour).UTC().Format(http.TimeFormat)
	c = serveCanned(t, canned{429, map[string]string{"Retry-After": past}, ""})
	if _, err := c.Repos(context.Background()); client.RetryAfter(err) != 0 {
		t.Errorf("RetryAfter of a past date = %v, want 0", client.RetryAfter(err))
	}
	c = serveCanned(t, canned{429, map[string]string{"Retry-After": "99999999999999"}, ""})
	if _, err := c.Repos(context.Background()); client.RetryAfter(err) != 24*time.Hour {
		t.Errorf("RetryAfter of a huge value = %v, want the 24h cap", client.RetryAfter(err))
	}
}

func TestAPIErrorAccessors(t *testing.T) {
	var e client.APIError
	if err := json.Unmarshal([]byte(`{"Details":{"n":3.5}}`), &e); err != nil {
		t.Fatal(err)
	}
	if _, ok := e.DetailInt("n"); ok {
		t.Error("DetailInt accepted 3.5")
	}
	if _, _, ok := e.EntryLimit(); ok {
		t.Error("EntryLimit ok without details")
	}
	if _, ok := e.Secret(); ok {
		t.Error("Secret ok without secret_detected")
	}
	e.Details["max_entries"], e.Details["received_entries"] = float64(10), float64(12)
	if max, recv, ok := e.EntryLimit(); !ok || max != 10 || recv != 12 {
		t.Errorf("EntryLimit from float64 = %d %d %v", max, recv, ok)
	}
	if IsRetryableNil := client.IsRetryable(nil); IsRetryableNil {
		t.Error("IsRetryable(nil) = true")
	}
}
