package connlimit_test

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/teammem/teammem/server/connlimit"
)

// serve runs a real http.Server with teammem-server's timeouts behind a
// Limiter of max connections; /healthz answers at once, /block waits for
// release to be closed.
func serve(t *testing.T, max int, policy func(*connlimit.Limiter)) (addr string, l *connlimit.Limiter, release chan struct{}) {
	t.Helper()
	release = make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
	mux.HandleFunc("GET /block", func(w http.ResponseWriter, r *http.Request) { <-release; io.WriteString(w, "done") })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l = connlimit.New(max)
	if policy != nil {
		policy(l)
	}
	srv := &http.Server{Handler: mux, ConnState: l.ConnState, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 120 * time.Second}
	go srv.Serve(l.Listener(ln))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	})
	return ln.Addr().String(), l, release
}

// dial opens a raw socket and, when request is not "", sends one HTTP/1.1
// request for it and reads the answer, leaving the connection open (idle,
// kept alive).
func dial(t *testing.T, addr, path string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if path == "" {
		return c
	}
	if _, err := io.WriteString(c, "GET "+path+" HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return c
}

// healthz asks for /healthz on a new connection; the bound is generous
// (the reclaim takes milliseconds): without it the client would wait for
// the 120 s idle timeout or the 10 s read-header timeout.
func healthz(t *testing.T, addr string) {
	t.Helper()
	cl := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := cl.Get("http://" + addr + "/healthz")
	if err != nil {
		t.Fatalf("a new client was not served while the cap was held: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("healthz: %d", resp.StatusCode)
	}
}

// closedByServer reports whether the server closed c (a read sees EOF or a
// reset rather than timing out).
func closedByServer(c net.Conn) bool {
	c.SetReadDeadline(time.Now().Add(2 * time.Second))
	_, err := c.Read(make([]byte, 1))
	ne, timeout := err.(net.Error)
	return err != nil && !(timeout && ne.Timeout())
}

// closedCount is how many of conns the server closed, asked of all at once.
func closedCount(conns []net.Conn) int {
	closed := make(chan bool, len(conns))
	for _, c := range conns {
		go func() { closed <- closedByServer(c) }()
	}
	got := 0
	for range conns {
		if <-closed {
			got++
		}
	}
	return got
}

// TestIdleKeepAliveConnectionsAreReclaimed: the cap filled with keep-alive
// connections that each sent one GET /healthz and went idle, new clients
// are served, the oldest idle connections closed for them.
func TestIdleKeepAliveConnectionsAreReclaimed(t *testing.T) {
	addr, l, _ := serve(t, 20, func(l *connlimit.Limiter) { l.HighWater = 21 }) // only at the cap here
	idle := make([]net.Conn, 20)
	for i := range idle {
		idle[i] = dial(t, addr, "/healthz")
	}
	for range 3 {
		healthz(t, addr)
	}
	// One per new client, unless a client's own closed connection freed
	// the slot the next one took: idle ones, and no more than reclaimed.
	// (Which ones is the order they went idle in, not the order they were
	// dialled: the handlers finish concurrently.)
	n := int(l.Reclaimed())
	if n < 1 || n > 3 {
		t.Fatalf("%d connections reclaimed for 3 new clients", n)
	}
	if got := closedCount(idle); got != n {
		t.Errorf("%d idle connections closed; want the %d reclaimed", got, n)
	}
}

// TestSilentSocketsAreReclaimed: the cap filled with sockets that never
// sent a byte, a new client is served once they are SilentGrace old.
func TestSilentSocketsAreReclaimed(t *testing.T) {
	addr, l, _ := serve(t, 5, func(l *connlimit.Limiter) { l.SilentGrace = 100 * time.Millisecond })
	for range 5 {
		dial(t, addr, "")
	}
	healthz(t, addr)
	if l.Reclaimed() == 0 {
		t.Error("no silent connection was reclaimed")
	}
}

// TestNearTheCapIdleConnectionsAreClosed: from HighWater slots in use,
// each accepted connection closes one that has been idle for IdleGrace.
func TestNearTheCapIdleConnectionsAreClosed(t *testing.T) {
	addr, l, _ := serve(t, 10, func(l *connlimit.Limiter) { l.IdleGrace = 0 })
	old := make([]net.Conn, 8)
	for i := range old {
		old[i] = dial(t, addr, "/healthz")
	}
	if n := l.Reclaimed(); n != 0 {
		t.Fatalf("%d reclaimed below the high-water mark (%d)", n, l.HighWater)
	}
	dial(t, addr, "/healthz") // the 9th: at the high-water mark
	if got := closedCount(old); got != 1 || l.Reclaimed() != 1 {
		t.Errorf("at the high-water mark %d idle connections were closed, %d reclaimed; want one", got, l.Reclaimed())
	}
}

// TestActiveConnectionsAreNeverReclaimed: with the cap held by requests in
// flight, a new client waits and nothing is closed; each of those requests
// completes, and the new client is served once their connections idle.
func TestActiveConnectionsAreNeverReclaimed(t *testing.T) {
	addr, l, release := serve(t, 3, nil)
	done := make(chan error, 3)
	for range 3 {
		go func() {
			resp, err := http.Get("http://" + addr + "/block")
			if err == nil {
				resp.Body.Close()
			}
			done <- err
		}()
	}
	for l.InUse() < 3 {
		time.Sleep(10 * time.Millisecond)
	}
	waited := make(chan error, 1)
	go func() {
		cl := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
		resp, err := cl.Get("http://" + addr + "/healthz")
		if err == nil {
			resp.Body.Close()
		}
		waited <- err
	}()
	select {
	case err := <-waited:
		t.Fatalf("a client was served while every slot had a request in flight (%v)", err)
	case <-time.After(300 * time.Millisecond):
	}
	if n := l.Reclaimed(); n != 0 {
		t.Errorf("%d active connections reclaimed", n)
	}
	close(release) // their connections go idle: one is reclaimed for the waiting client
	for range 3 {
		if err := <-done; err != nil {
			t.Errorf("a request in flight failed: %v", err)
		}
	}
	if err := <-waited; err != nil {
		t.Errorf("the waiting client: %v", err)
	}
}
