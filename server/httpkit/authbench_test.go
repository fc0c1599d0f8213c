package httpkit_test

import (
	"crypto/ed25519"
	"crypto/rand"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/teammem/teammem/server/auth"
	"github.com/teammem/teammem/server/httpkit"
)

// BenchmarkAuthenticate is the per-request cost of bearer authentication
// alone (a verified token, cached as every token is after its first use)
// with a static token, reporting the p99 besides the mean.
func BenchmarkAuthenticate(b *testing.B) {
	_, key, _ := ed25519.GenerateKey(rand.Reader)
	v, err := auth.NewVerifier(key.Public(), auth.VerifierOptions{})
	if err != nil {
		b.Fatal(err)
	}
	m := &httpkit.Middleware{Log: slog.New(slog.DiscardHandler), Meter: &meter{}, Auth: v}
	h := httpkit.RequestIDs("bench")(m.Authenticate(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})))
	token, err := (&auth.Issuer{Key: key}).Issue("ann", []string{"acme/*:write"}, time.Hour)
	if err != nil {
		b.Fatal(err)
	}
	benchAuth(b, h, "/api/v1/repos", token)
}

func benchAuth(b *testing.B, h http.Handler, path, token string) {
	times := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		r := httptest.NewRequest(http.MethodGet, path, nil)
		r.Header.Set("Authorization", "Bearer "+token)
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
