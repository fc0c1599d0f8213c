package client_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/client"
)

// sseServer serves an event stream written by write, after checking the
// token; it records the last request.
func sseServer(t *testing.T, write func(w http.ResponseWriter, flush func())) (*httptest.Server, <-chan *http.Request) {
	t.Helper()
	reqs := make(chan *http.Request, 10)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reqs <- r.Clone(context.Background())
		if r.URL.Path != api.PathEvents || r.Header.Get("Authorization") != "Bearer tok" {
			http.Error(w, "bad request", 400)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
		w.WriteHeader(200)
		flush := func() { w.(http.Flusher).Flush() }
		flush()
		write(w, flush)
	}))
	t.Cleanup(srv.Close)
	return srv, reqs
}

func TestEventsStream(t *testing.T) {
	srv, reqs := sseServer(t, func(w http.ResponseWriter, flush func()) {
		io.WriteString(w, "retry: 3000\n: keep-alive\n\n")
		io.WriteString(w, "id: 8\nevent: change\ndata: {\"repo\":\"acme/api\",\"version\":8,\"checksum\":\"sha256:a\",\n")
		io.WriteString(w, "data: \"changed\":[\"a.md\"],\"deleted\":[],\"author\":\"ann\",\"at\":\"2026-01-02T03:04:05.000Z\"}\n\n")
		flush()
		io.WriteString(w, "id: 8\nevent: hello\ndata: ignored\n\n")
		io.WriteString(w, "id: 9\nevent: change\ndata: not json\n\n")
		io.WriteString(w, "id: 10\nevent: change\ndata: {\"repo\":\"acme/api\",\"version\":10,\"deleted\":[\"b.md\"]}\n\n")
	})
	c, err := client.New(client.Options{BaseURL: srv.URL, Token: "tok", Timeout: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	s, err := c.Events(context.Background(), "acme/api", 7)
	if err != nil {
		t.Fatalf("Events: %v (Options.Timeout must not apply to streams)", err)
	}
	defer s.Close()
	req := <-reqs
	if req.URL.Query().Get("after") != "7" || req.Header.Get("Last-Event-ID") != "7" || req.Header.Get("Accept") != "text/event-stream" {
		t.Errorf("request query %v, headers %v", req.URL.Query(), req.Header)
	}

	ev, err := s.Next()
	if err != nil {
		t.Fatalf("Next: %v", err)
	}
	want := client.StreamEvent{Event: api.Event{Repo: "acme/api", Version: 8, Checksum: "sha256:a", Changed: []string{"a.md"}, Deleted: []string{}, Author: "ann", At: "2026-01-02T03:04:05.000Z"}}
	if diff := cmp.Diff(want, ev); diff != "" {
		t.Errorf("event (-want +got):\n%s", diff)
	}
	if s.LastEventID() != "8" || s.Retry() != 3*time.Second {
		t.Errorf("LastEventID %q Retry %v, want 8 and 3s", s.LastEventID(), s.Retry())
	}
	if _, err := s.Next(); !errors.Is(err, client.ErrInvalidResponse) || s.LastEventID() != "9" {
		t.Errorf("Next on bad data = %v (id %q), want ErrInvalidResponse", err, s.LastEventID())
	}
	if ev, err := s.Next(); err != nil || ev.Version != 10 {
		t.Errorf("Next after bad data = %+v, %v; want version 10", ev, err)
	}
	if _, err := s.Next(); err != io.EOF {
		t.Errorf("Next at end = %v, want io.EOF", err)
	}
}

func TestEventsUnsupported(t *testing.T) {
	tests := []struct {
		name     string
		resp     canned
		also     error
		fallback bool
	}{
		{"404", canned{404, nil, "404 page not found"}, client.ErrNotFound, true},
		{"405", canned{405, nil, ""}, nil, true},
		{"501", canned{501, nil, ""}, client.ErrServer, true},
		{"200 not a stream", canned{200, map[string]string{"Content-Type": "application/json"}, "{}"}, nil, true},
		{"401 is not a fallback", canned{401, nil, envelope(401, api.TypeAuthentication, api.CodeUnauthenticated, "Expired.", "")}, client.ErrUnauthorized, false},
		{"503 is not a fallback", canned{503, map[string]string{"Retry-After": "5"}, ""}, client.ErrServer, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := serveCanned(t, tt.resp)
			s, err := c.Events(context.Background(), "acme/api", 0)
			if s != nil || err == nil {
				t.Fatalf("Events = %v, %v; want an error", s, err)
			}
			if got := errors.Is(err, client.ErrEventsUnsupported); got != tt.fallback {
				t.Errorf("errors.Is(%v, ErrEventsUnsupported) = %v, want %v", err, got, tt.fallback)
			}
			if tt.also != nil && !errors.Is(err, tt.also) {
				t.Errorf("errors.Is(%v, %v) = false", err, tt.also)
			}
		})
	}
}

func TestEventsEndings(t *testing.T) {
	block := make(chan struct{})
	srv, _ := sseServer(t, func(w http.ResponseWriter, flush func()) {
		io.WriteString(w, ": connected\n\n")
		flush()
		<-block
	})
	t.Cleanup(func() { close(block) }) // before the server's Close waits for handlers
	c := newClient(t, srv.URL, "tok")

	t.Run("Close interrupts Next", func(t *testing.T) {
		s, err := c.Events(context.Background(), "acme/api", 0)
		if err != nil {
			t.Fatal(err)
		}
		errc := make(chan error)
		go func() { _, err := s.Next(); errc <- err }()
		s.Close()
		if err := <-errc; err != io.EOF {
			t.Errorf("Next after Close = %v, want io.EOF", err)
		}
		if err := s.Close(); err != nil {
			t.Errorf("second Close = %v", err)
		}
	})
	t.Run("context cancellation", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		s, err := c.Events(ctx, "acme/api", 0)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		go cancel()
		if _, err := s.Next(); !errors.Is(err, context.Canceled) || client.IsRetryable(err) {
			t.Errorf("Next after cancel = %v, want context.Canceled, not retryable", err)
		}
	})
}

func TestEventsBrokenConnection(t *testing.T) {
	srv, _ := sseServer(t, func(w http.ResponseWriter, flush func()) {
		io.WriteString(w, "id: 4\ndata: {\"version\":4}\n\nid: 5\ndata: {\"vers")
		flush()
		panic(http.ErrAbortHandler)
	})
	s, err := newClient(t, srv.URL, "tok").Events(context.Background(), "acme/api", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if ev, err := s.Next(); err != nil || ev.Version != 4 {
		t.Fatalf("Next = %+v, %v", ev, err)
	}
	_, err = s.Next()
	if !errors.Is(err, client.ErrNetwork) && err != io.EOF {
		t.Fatalf("Next on a broken stream = %v, want ErrNetwork or io.EOF", err)
	}
	if s.LastEventID() != "4" {
		t.Errorf("LastEventID = %q, want 4 (resume point)", s.LastEventID())
	}
}

// TestEventsReset surfaces a reset, which the caller answers with a full
// pull.
// TestEventsReset: a reset, then a proposal's event (no id), then a change.
func TestEventsReset(t *testing.T) {
	srv, _ := sseServer(t, func(w http.ResponseWriter, flush func()) {
		io.WriteString(w, "event: reset\ndata: {\"repo\":\"acme/api\",\"version\":3,\"checksum\":\"sha256:c\"}\n\n")
		io.WriteString(w, "event: proposal\ndata: {\"id\":7,\"repo\":\"acme/api\",\"state\":\"rejected\",\"author\":\"bob\",\"keys\":[\"a.md\"]}\n\n")
		io.WriteString(w, "id: 4\nevent: change\ndata: {\"version\":4}\n\n")
	})
	s, err := newClient(t, srv.URL, "tok").Events(context.Background(), "acme/api", 9)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ev, err := s.Next()
	if err != nil || !ev.Reset || ev.Version != 3 || ev.Checksum != "sha256:c" {
		t.Fatalf("Next = %+v, %v; want a reset to version 3", ev, err)
	}
	if ev, err := s.Next(); err != nil || ev.Proposal == nil || ev.Proposal.ID != 7 || ev.Proposal.State != "rejected" || ev.Version != 0 || s.LastEventID() != "" {
		t.Errorf("Next after the reset = %+v, %v (last id %q); want proposal #7 rejected, the last id untouched", ev, err, s.LastEventID())
	}
	if ev, err := s.Next(); err != nil || ev.Reset || ev.Proposal != nil || ev.Version != 4 {
		t.Errorf("Next after the proposal = %+v, %v; want change 4", ev, err)
	}
}

// TestEventsIdle gives up a stream that stays silent longer than
// StreamIdle, as a network error to reconnect after; keep-alive comments
// keep it open.
func TestEventsIdle(t *testing.T) {
	block := make(chan struct{})
	srv, _ := sseServer(t, func(w http.ResponseWriter, flush func()) {
		for i := 0; i < 4; i++ {
			io.WriteString(w, ": keep-alive\n\n")
			flush()
			time.Sleep(100 * time.Millisecond)
		}
		io.WriteString(w, "id: 1\nevent: change\ndata: {\"version\":1}\n\n")
		flush()
		<-block // then silence
	})
	t.Cleanup(func() { close(block) })
	c, err := client.New(client.Options{BaseURL: srv.URL, Token: "tok", StreamIdle: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	s, err := c.Events(context.Background(), "acme/api", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if ev, err := s.Next(); err != nil || ev.Version != 1 {
		t.Fatalf("Next = %+v, %v; want change 1 (keep-alives every 100 ms keep a 300 ms idle limit)", ev, err)
	}
	start := time.Now()
	_, err = s.Next()
	if !errors.Is(err, client.ErrNetwork) || !client.IsRetryable(err) {
		t.Errorf("Next on a silent stream = %v; want a retryable ErrNetwork", err)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("gave up after %v", d)
	}
}
