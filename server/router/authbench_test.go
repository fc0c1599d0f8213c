package router_test

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/teammem/teammem/testkit/servertest"
)

// BenchmarkAuthenticatedRequest measures a request with a static token
// through the whole handler (no network) on REST and /mcp, reporting the
// p99 besides the mean: the per-request cost of authentication that OAuth
// must not raise (server/oauth's BenchmarkOAuthRequest is its twin with an
// OAuth access token).
func BenchmarkAuthenticatedRequest(b *testing.B) {
	s := servertest.Start(b, servertest.Options{})
	token := s.Token("ann", "acme/*:write")
	b.Run("rest", func(b *testing.B) { benchRequest(b, s.Handler, restRequest(token)) })
	b.Run("mcp", func(b *testing.B) { benchRequest(b, s.Handler, mcpRequest(token)) })
}

func restRequest(token string) func() *http.Request {
	return func() *http.Request {
		r := httptest.NewRequest(http.MethodGet, "/api/v1/repos", nil)
		r.Header.Set("Authorization", "Bearer "+token)
		return r
	}
}

func mcpRequest(token string) func() *http.Request {
	return func() *http.Request {
		r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}`))
		r.Header.Set("Authorization", "Bearer "+token)
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		return r
	}
}

// benchRequest serves request b.N times and reports the p99 latency.
func benchRequest(b *testing.B, h http.Handler, request func() *http.Request) {
	times := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		r := request()
		w := httptest.NewRecorder()
		start := time.Now()
		h.ServeHTTP(w, r)
		times = append(times, time.Since(start))
		if w.Code != http.StatusOK {
			b.Fatalf("status %d: %s", w.Code, w.Body)
		}
	}
	b.StopTimer()
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)*99/100].Nanoseconds()), "p99-ns")
}
