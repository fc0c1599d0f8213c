package agent

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/client"
	"github.com/teammem/teammem/testkit/proctest"
)

// sseFeed is an events endpoint the test drives: each connection streams
// the frames sent on frames until end is signalled; it records the resume
// point of every connection. Faults are what it injects (a dropped
// stream), hence a fake.
type sseFeed struct {
	srv     *httptest.Server
	frames  chan string
	end     chan struct{}
	mu      sync.Mutex
	resumes []string // Last-Event-ID of each connection
	status  int      // answer this instead of a stream, when set
}

func newSSEFeed(t *testing.T) *sseFeed {
	f := &sseFeed{frames: make(chan string, 100), end: make(chan struct{}, 1)}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.resumes = append(f.resumes, r.Header.Get("Last-Event-ID"))
		status := f.status
		f.mu.Unlock()
		if status != 0 {
			http.Error(w, "no", status)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		w.(http.Flusher).Flush()
		for {
			select {
			case fr := <-f.frames:
				io.WriteString(w, fr)
				w.(http.Flusher).Flush()
			case <-f.end:
				return
			case <-r.Context().Done():
				return
			}
		}
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *sseFeed) change(v int64) {
	f.frames <- fmt.Sprintf("id: %d\nevent: change\ndata: {\"repo\":%q,\"version\":%d}\n\n", v, testRepo, v)
}

func (f *sseFeed) connections() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.resumes...)
}

func (f *sseFeed) client(t *testing.T) *client.Client {
	c, err := client.New(client.Options{BaseURL: f.srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestFollower coalesces a burst into one signal, resumes after the last
// version it saw when the stream drops, passes a reset on, and reports
// its state.
func TestFollower(t *testing.T) {
	feed := newSSEFeed(t)
	var states []StreamState
	var mu sync.Mutex
	f := NewFollower(feed.client(t), testRepo, FollowOptions{Backoff: time.Millisecond, MaxBackoff: 10 * time.Millisecond,
		OnState: func(st StreamState) { mu.Lock(); states = append(states, st); mu.Unlock() }})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); f.Run(ctx, 4) }()
	defer func() { cancel(); <-done }()

	proctest.WaitFor(t, "", func() bool { return f.Healthy() })
	feed.change(5)
	feed.change(6)
	feed.change(7)
	proctest.WaitFor(t, "", func() bool { return f.State().LastVersion == 7 })
	<-f.Changes()
	if v, reset := f.Take(); v != 7 || reset {
		t.Errorf("Take = %d, %v; want 7 (the burst coalesced)", v, reset)
	}
	feed.end <- struct{}{} // the server drops the stream
	proctest.WaitFor(t, "", func() bool { return len(feed.connections()) == 2 && f.Healthy() })
	if got := feed.connections(); got[0] != "4" || got[1] != "7" {
		t.Errorf("resume points %q; want 4 then 7", got)
	}
	if st := f.State(); st.Reconnects != 1 || st.ConnectedSince == nil {
		t.Errorf("state after reconnecting %+v; want 1 reconnect", st)
	}
	feed.change(7) // a replayed duplicate announces nothing
	feed.frames <- "event: reset\ndata: {\"repo\":\"acme/api\",\"version\":3,\"checksum\":\"sha256:x\"}\n\n"
	proctest.WaitFor(t, "", func() bool { return f.State().LastVersion == 3 })
	<-f.Changes()
	if v, reset := f.Take(); !reset || v != 3 {
		t.Errorf("Take after reset = %d, %v; want 3, true", v, reset)
	}
	mu.Lock()
	defer mu.Unlock()
	var sawDown bool
	for _, st := range states {
		sawDown = sawDown || st.State == StreamDown
	}
	if !sawDown {
		t.Error("the dropped stream was never reported down")
	}
}

// TestFollowerDecidedProposals: a proposal's decision is passed on for
// TakeDecided (an open one is not), and moves neither the version nor the
// resume point.
func TestFollowerDecidedProposals(t *testing.T) {
	feed := newSSEFeed(t)
	f := NewFollower(feed.client(t), testRepo, FollowOptions{Backoff: time.Millisecond, MaxBackoff: 10 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); f.Run(ctx, 4) }()
	defer func() { cancel(); <-done }()
	proctest.WaitFor(t, "", func() bool { return f.Healthy() })
	proposal := func(id int, state string) {
		feed.frames <- fmt.Sprintf("event: proposal\ndata: {\"id\":%d,\"repo\":%q,\"state\":%q}\n\n", id, testRepo, state)
	}
	proposal(2, "open")
	proposal(3, "rejected")
	<-f.Changes()
	if ids := f.TakeDecided(); len(ids) != 1 || ids[0] != 3 {
		t.Errorf("TakeDecided = %v; want [3]", ids)
	}
	if v, reset := f.Take(); v != 0 || reset || f.State().LastVersion != 0 {
		t.Errorf("Take after proposals = %d, %v (last version %d); want nothing", v, reset, f.State().LastVersion)
	}
	feed.end <- struct{}{}
	proctest.WaitFor(t, "", func() bool { return len(feed.connections()) == 2 })
	if got := feed.connections(); got[1] != "4" {
		t.Errorf("resume point after proposals %q; want 4", got[1])
	}
}

// TestFollowerUnsupported reports a server without events, so the engine
// keeps polling.
func TestFollowerUnsupported(t *testing.T) {
	feed := newSSEFeed(t)
	feed.status = http.StatusNotFound
	f := NewFollower(feed.client(t), testRepo, FollowOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); f.Run(ctx, 0) }()
	proctest.WaitFor(t, "", func() bool { return f.State().State == StreamUnsupported })
	if f.Healthy() {
		t.Error("healthy without a stream")
	}
	cancel()
	<-done
}

// TestEngineFollowsEvents pulls when a newer version is announced, without
// any poll, and ignores the event of its own push.
func TestEngineFollowsEvents(t *testing.T) {
	feed := newSSEFeed(t)
	r := newRig(t, map[string]string{"a.md": "a\n"}, nil, func(c *Config) {
		c.Watch, c.Debounce, c.MaxDelay = true, 20*time.Millisecond, 100*time.Millisecond
		c.Poll, c.SafetyPoll = time.Hour, time.Hour
		c.Events = feed.client(t)
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.engine.Run(ctx) }()
	defer func() { cancel(); <-done }()
	proctest.WaitFor(t, "", func() bool { return r.localHas("a.md") && len(feed.connections()) > 0 })

	r.remote.mu.Lock()
	r.remote.apply(api.PutRequest{Entries: map[string]string{"b.md": "from a teammate\n"}})
	v := r.remote.version
	r.remote.mu.Unlock()
	feed.change(v)
	proctest.WaitFor(t, "", func() bool { return r.localHas("b.md") })

	writeTree(t, r.dir, map[string]string{"mine.md": "mine\n"})
	proctest.WaitFor(t, "", func() bool { return r.remote.snapshot()["mine.md"] == "mine\n" })
	time.Sleep(50 * time.Millisecond) // the push's cycle is over
	r.remote.mu.Lock()
	gets, own := r.remote.gets, r.remote.version
	r.remote.mu.Unlock()
	feed.change(own)
	feed.change(own + 1) // then a teammate's, so that we know the own one was read
	r.remote.mu.Lock()
	r.remote.apply(api.PutRequest{Entries: map[string]string{"c.md": "c\n"}})
	r.remote.mu.Unlock()
	proctest.WaitFor(t, "", func() bool { return r.localHas("c.md") })
	r.remote.mu.Lock()
	defer r.remote.mu.Unlock()
	if r.remote.gets != gets+1 {
		t.Errorf("%d pulls after our own push's event and a teammate's; want 1", r.remote.gets-gets)
	}
}
