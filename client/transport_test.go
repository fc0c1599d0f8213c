package client_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/teammem/teammem/client"
)

// hangingServer accepts requests and answers only when the test ends.
func hangingServer(t *testing.T) *httptest.Server {
	t.Helper()
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-done:
		}
	}))
	t.Cleanup(func() { close(done); srv.Close() })
	return srv
}

func TestContextCancellationIsNotRetryable(t *testing.T) {
	srv := hangingServer(t)
	c := newClient(t, srv.URL, "tok")
	ctx, cancel := context.WithCancel(context.Background())
	go cancel()
	_, err := c.Get(ctx, "acme/api", client.GetOptions{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error = %v, want context.Canceled", err)
	}
	if client.IsRetryable(err) || errors.Is(err, client.ErrNetwork) {
		t.Errorf("cancellation %v reported as retryable or a network error", err)
	}
}

func TestCallerDeadlineIsNotRetryable(t *testing.T) {
	srv := hangingServer(t)
	c := newClient(t, srv.URL, "tok")
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	_, err := c.Hashes(ctx, "acme/api")
	if !errors.Is(err, context.DeadlineExceeded) || client.IsRetryable(err) {
		t.Fatalf("error = %v (retryable %v), want the caller's deadline, not retryable", err, client.IsRetryable(err))
	}
}

func TestClientTimeoutIsRetryable(t *testing.T) {
	srv := hangingServer(t)
	c, err := client.New(client.Options{BaseURL: srv.URL, Timeout: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Repos(context.Background())
	if !errors.Is(err, client.ErrTimeout) || !client.IsRetryable(err) {
		t.Fatalf("error = %v, want ErrTimeout and retryable", err)
	}
}

func TestNetworkErrorIsRetryable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there any more
	c := newClient(t, "http://"+addr, "tok-network-secret")
	_, err = c.Get(context.Background(), "acme/api", client.GetOptions{})
	if !errors.Is(err, client.ErrNetwork) || !client.IsRetryable(err) {
		t.Fatalf("error = %v, want ErrNetwork and retryable", err)
	}
	if strings.Contains(err.Error(), "tok-network-secret") {
		t.Errorf("error leaks the token: %v", err)
	}
}

func TestConnectionDroppedMidBody(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "1000")
		w.WriteHeader(200)
		w.Write([]byte(`{"version":`))
		panic(http.ErrAbortHandler) // drops the connection
	}))
	t.Cleanup(srv.Close)
	_, err := newClient(t, srv.URL, "tok").Hashes(context.Background(), "acme/api")
	if !errors.Is(err, client.ErrNetwork) || !client.IsRetryable(err) {
		t.Fatalf("error = %v, want a retryable ErrNetwork", err)
	}
}

func TestHostileSuccessBodies(t *testing.T) {
	tests := []struct {
		name, body string
	}{
		{"not JSON", "<html>hello</html>"},
		{"empty", ""},
		{"wrong types", `{"version":"seven","checksum":1}`},
		{"trailing garbage", `{"version":1} {"version":2}`},
		{"truncated", `{"version":1,"entryChecksums":{"a":`},
		{"too large", `{"version":1,"checksum":"` + strings.Repeat("x", 2048) + `"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Write([]byte(tt.body))
			}))
			t.Cleanup(srv.Close)
			c, err := client.New(client.Options{BaseURL: srv.URL, MaxResponseBytes: 1024})
			if err != nil {
				t.Fatal(err)
			}
			h, err := c.Hashes(context.Background(), "acme/api")
			if !errors.Is(err, client.ErrInvalidResponse) || h != nil {
				t.Fatalf("Hashes = %v, %v; want ErrInvalidResponse", h, err)
			}
			if client.IsRetryable(err) {
				t.Errorf("IsRetryable(%v) = true", err)
			}
		})
	}
}

// TestHugeErrorBody checks an error body is read only up to its cap.
func TestHugeErrorBody(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(500)
		chunk := []byte(strings.Repeat("A", 1<<16))
		for i := 0; i < 1024; i++ { // 64 MiB unless the client hangs up
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	t.Cleanup(srv.Close)
	_, err := newClient(t, srv.URL, "tok").Repos(context.Background())
	var e *client.APIError
	if !errors.As(err, &e) || e.Status != 500 {
		t.Fatalf("error = %v, want an APIError 500", err)
	}
	if len(e.Message) > 300 {
		t.Errorf("message is %d bytes; want the body's start only", len(e.Message))
	}
}

func TestTokenSource(t *testing.T) {
	f, _ := newFakeServer(t)
	srvURL := f.url
	calls := 0
	c, err := client.New(client.Options{BaseURL: srvURL, TokenSource: func(ctx context.Context) (string, error) {
		calls++
		return tokenWriter, nil
	}, UserAgent: "ci-tool/1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Repos(context.Background()); err != nil {
		t.Fatalf("Repos: %v", err)
	}
	if calls != 1 || f.lastRequest().UserAgent() != "ci-tool/1" {
		t.Errorf("token source called %d times, user agent %q", calls, f.lastRequest().UserAgent())
	}

	failing := errors.New("vault sealed")
	for name, src := range map[string]func(context.Context) (string, error){
		"error": func(context.Context) (string, error) { return "", failing },
		"empty": func(context.Context) (string, error) { return "", nil },
	} {
		c, _ := client.New(client.Options{BaseURL: srvURL, TokenSource: src})
		if _, err := c.Repos(context.Background()); err == nil || !strings.Contains(err.Error(), "get token") {
			t.Errorf("%s token source: error = %v", name, err)
		}
	}
}
