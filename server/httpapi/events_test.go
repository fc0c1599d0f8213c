package httpapi_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/testkit/servertest"
)

// sseConn is an open events stream read frame by frame.
type sseConn struct {
	t    *testing.T
	resp *http.Response
	rd   *bufio.Reader
}

// openEvents opens GET .../events on path with token and headers; the
// caller checks the status.
func (ts *testServer) openEvents(path, token string, headers ...string) *sseConn {
	ts.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	resp, err := ts.Client.Do(ts.NewRequest(ctx, http.MethodGet, path, token, nil, headers...))
	if err != nil {
		cancel()
		ts.t.Fatal(err)
	}
	ts.t.Cleanup(func() { cancel(); resp.Body.Close() })
	return &sseConn{t: ts.t, resp: resp, rd: bufio.NewReader(resp.Body)}
}

// frame reads the next frame (up to a blank line), as its lines.
func (c *sseConn) frame() []string {
	c.t.Helper()
	var lines []string
	deadline := time.AfterFunc(20*time.Second, func() { c.resp.Body.Close() })
	defer deadline.Stop()
	for {
		line, err := c.rd.ReadString('\n')
		if err != nil {
			c.t.Fatalf("reading the stream after %q: %v", lines, err)
		}
		line = strings.TrimSuffix(line, "\n")
		if line == "" {
			return lines
		}
		lines = append(lines, line)
	}
}

// event reads frames until one that is not a comment or retry advice and
// returns its id, type and data.
func (c *sseConn) event() (id, typ, data string) {
	c.t.Helper()
	for {
		lines := c.frame()
		if strings.HasPrefix(lines[0], ":") || strings.HasPrefix(lines[0], "retry:") {
			continue
		}
		for _, l := range lines {
			name, value, _ := strings.Cut(l, ": ")
			switch name {
			case "id":
				id = value
			case "event":
				typ = value
			case "data":
				data = value
			}
		}
		return id, typ, data
	}
}

func (c *sseConn) change() api.Event {
	c.t.Helper()
	id, typ, data := c.event()
	var ev api.Event
	if err := json.Unmarshal([]byte(data), &ev); err != nil || typ != api.EventChange {
		c.t.Fatalf("frame id %q type %q data %q: want a change event (%v)", id, typ, data, err)
	}
	if id != strconv.FormatInt(ev.Version, 10) {
		c.t.Errorf("id %q for version %d", id, ev.Version)
	}
	return ev
}

func TestEventsStream(t *testing.T) {
	ts := newTestServer(t, servertest.Options{})
	ts.Put("acme/api", map[string]string{"a.md": "1"}, nil, 200)
	ts.Put("acme/api", map[string]string{"b.md": "2"}, []string{"a.md"}, 200)

	c := ts.openEvents(api.PathEvents+"?repo=acme/api", ts.Admin, "Last-Event-ID", "0")
	if c.resp.StatusCode != 200 || !strings.HasPrefix(c.resp.Header.Get("Content-Type"), "text/event-stream") ||
		c.resp.Header.Get("Cache-Control") != "no-cache" {
		t.Fatalf("status %d, headers %v", c.resp.StatusCode, c.resp.Header)
	}
	if first := c.frame(); len(first) != 1 || first[0] != "retry: 2000" {
		t.Errorf("first frame %q; want the retry advice", first)
	}
	if ev := c.change(); ev.Version != 1 || ev.Repo != "acme/api" || ev.Author != "admin" || len(ev.Changed) != 1 || ev.Changed[0] != "a.md" {
		t.Errorf("replayed event 1: %+v", ev)
	}
	ev := c.change()
	if ev.Version != 2 || ev.Changed[0] != "b.md" || ev.Deleted[0] != "a.md" || !strings.HasPrefix(ev.Checksum, "sha256:") {
		t.Errorf("replayed event 2: %+v", ev)
	}
	if _, err := time.Parse("2006-01-02T15:04:05.000Z", ev.At); err != nil {
		t.Errorf("at %q: %v", ev.At, err)
	}
	put := ts.Put("acme/api", map[string]string{"c.md": "<&>"}, nil, 200)
	live := c.change()
	pr := servertest.Decode[api.PutResponse](t, put)
	if live.Version != 3 || live.Checksum != pr.Checksum || live.Changed[0] != "c.md" || len(live.Deleted) != 0 {
		t.Errorf("live event %+v; want version 3 with the PUT's checksum %s", live, pr.Checksum)
	}

	// ?after on the alias resumes as Last-Event-ID does.
	alias := ts.openEvents(api.PathTeamMemoryAlias+"/events?repo=Acme%2FAPI&after=2", ts.Admin)
	if ev := alias.change(); ev.Version != 3 {
		t.Errorf("alias after=2: version %d; want 3", ev.Version)
	}
	// No resume point: only what comes next.
	fresh := ts.openEvents(api.PathEvents+"?repo=acme/api", ts.Admin)
	fresh.frame() // the retry advice: subscribed
	ts.Put("acme/api", map[string]string{"d.md": "4"}, nil, 200)
	if ev := fresh.change(); ev.Version != 4 {
		t.Errorf("fresh stream: version %d; want 4", ev.Version)
	}
}

func TestEventsReset(t *testing.T) {
	ts := newTestServer(t, servertest.Options{})
	ts.Put("acme/api", map[string]string{"a.md": "1"}, nil, 200)
	c := ts.openEvents(api.PathEvents+"?repo=acme/api", ts.Admin, "Last-Event-ID", "7")
	id, typ, data := c.event()
	var r api.Reset
	if err := json.Unmarshal([]byte(data), &r); err != nil || typ != api.EventReset || id != "" || r.Version != 1 || r.Repo != "acme/api" || !strings.HasPrefix(r.Checksum, "sha256:") {
		t.Fatalf("frame id %q type %q data %q; want a reset to version 1 without an id", id, typ, data)
	}
	ts.Put("acme/api", map[string]string{"a.md": "2"}, nil, 200)
	if ev := c.change(); ev.Version != 2 {
		t.Errorf("after the reset: version %d; want 2", ev.Version)
	}
}

func TestEventsHeartbeat(t *testing.T) {
	ts := newTestServer(t, servertest.Options{Heartbeat: 50 * time.Millisecond})
	c := ts.openEvents(api.PathEvents+"?repo=acme/api", ts.Admin)
	c.frame() // retry
	for i := 0; i < 2; i++ {
		if f := c.frame(); len(f) != 1 || f[0] != ": keep-alive" {
			t.Fatalf("frame %q; want the keep-alive comment", f)
		}
	}
}

// TestEventsHTTP2 streams through the ResponseWriter where the
// connection cannot be taken over (HTTP/2 multiplexes it).
func TestEventsHTTP2(t *testing.T) {
	ts := newTestServer(t, servertest.Options{TLS: true, Heartbeat: 50 * time.Millisecond})
	c := ts.openEvents(api.PathEvents+"?repo=acme/api", ts.Admin)
	if c.resp.ProtoMajor != 2 || c.resp.StatusCode != 200 {
		t.Fatalf("%s %d; want an HTTP/2 200", c.resp.Proto, c.resp.StatusCode)
	}
	c.frame() // retry
	ts.Put("acme/api", map[string]string{"a.md": "1"}, nil, 200)
	if ev := c.change(); ev.Version != 1 || len(ev.Changed) != 1 {
		t.Errorf("event %+v; want version 1 changing a.md", ev)
	}
}

// TestEventsHTTP10: an HTTP/1.0 client cannot take a chunked body, so its
// stream is not taken over but written through the ResponseWriter, ending
// with the connection; events still arrive.
func TestEventsHTTP10(t *testing.T) {
	ts := newTestServer(t, servertest.Options{})
	conn, err := net.Dial("tcp", strings.TrimPrefix(ts.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	_ = conn.SetDeadline(time.Now().Add(20 * time.Second))
	fmt.Fprintf(conn, "GET %s?repo=acme/api HTTP/1.0\r\nAuthorization: Bearer %s\r\n\r\n", api.PathEvents, ts.Admin)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || len(resp.TransferEncoding) != 0 || !resp.Close {
		t.Fatalf("%d %v close=%v; want a 200 delimited by the connection's end, not chunked", resp.StatusCode, resp.TransferEncoding, resp.Close)
	}
	c := &sseConn{t: t, resp: resp, rd: bufio.NewReader(resp.Body)}
	c.frame() // retry
	ts.Put("acme/api", map[string]string{"a.md": "1"}, nil, 200)
	if ev := c.change(); ev.Version != 1 {
		t.Errorf("event %+v; want version 1", ev)
	}
}

// TestEventsClientGone: the server takes an HTTP/1.1 stream's connection
// over and never reads it again, so a client that leaves is noticed by
// the heartbeat writes; the stream and its connection are then let go.
func TestEventsClientGone(t *testing.T) {
	ts := newTestServer(t, servertest.Options{Heartbeat: 50 * time.Millisecond})
	gauge := func(name string) string {
		m := string(ts.Send(false, http.MethodGet, api.PathMetrics, "", nil).Body)
		for _, l := range strings.Split(m, "\n") {
			if v, ok := strings.CutPrefix(l, name+" "); ok {
				return v
			}
		}
		t.Fatalf("no %s in the metrics", name)
		return ""
	}
	conns := gauge("teammem_http_connections_open") // the scrape's own
	c := ts.openEvents(api.PathEvents+"?repo=acme/api", ts.Admin)
	c.frame()
	if c.resp.ProtoMajor != 1 || c.resp.TransferEncoding[0] != "chunked" {
		t.Fatalf("%s %v; want a chunked HTTP/1.1 stream", c.resp.Proto, c.resp.TransferEncoding)
	}
	if g := gauge("teammem_event_streams_open"); g != "1" {
		t.Fatalf("streams open %s; want 1", g)
	}
	if n, _ := strconv.Atoi(conns); gauge("teammem_http_connections_open") != strconv.Itoa(n+1) {
		t.Errorf("the stream's connection is not counted (%s before)", conns)
	}
	c.resp.Body.Close()
	deadline := time.Now().Add(15 * time.Second)
	for gauge("teammem_event_streams_open") != "0" || gauge("teammem_http_connections_open") != conns {
		if time.Now().After(deadline) {
			t.Fatal("the stream of a client that left is still open")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestEventsAuth answers like GET: 401 without a valid token, 403 without
// a read grant whether or not the repository exists, 400 for a bad
// resume point or slug.
func TestEventsAuth(t *testing.T) {
	ts := newTestServer(t, servertest.Options{})
	ts.Put("acme/api", map[string]string{"a.md": "1"}, nil, 200)
	other := ts.Token("olga", "other/*:read")
	for _, tt := range []struct {
		name, path, token string
		headers           []string
		status            int
		code              string
	}{
		{"no token", "?repo=acme/api", "", nil, 401, api.CodeUnauthenticated},
		{"bad token", "?repo=acme/api", "nope", nil, 401, api.CodeUnauthenticated},
		{"no grant, existing repo", "?repo=acme/api", other, nil, 403, api.CodeForbidden},
		{"no grant, missing repo", "?repo=acme/none", other, nil, 403, api.CodeForbidden},
		{"bad Last-Event-ID", "?repo=acme/api", ts.Admin, []string{"Last-Event-ID", "x1"}, 400, string(api.CodeInvalidParameter)},
		{"negative after", "?repo=acme/api&after=-1", ts.Admin, nil, 400, string(api.CodeInvalidParameter)},
		{"bad slug", "?repo=acme//api", ts.Admin, nil, 400, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := ts.Do(http.MethodGet, api.PathEvents+tt.path, tt.token, nil, tt.headers...)
			if r.Status != tt.status {
				t.Fatalf("status %d; want %d: %s", r.Status, tt.status, r.Body)
			}
			if e := r.ErrorBody(t); tt.code != "" && e.Code() != tt.code {
				t.Errorf("code %q; want %q", e.Code(), tt.code)
			}
		})
	}
	reader := ts.Token("rita", "acme/*:read")
	c := ts.openEvents(api.PathEvents+"?repo=acme/api&after=0", reader)
	if ev := c.change(); ev.Version != 1 {
		t.Errorf("reader: version %d", ev.Version)
	}
}

// TestEventsStreamCap answers 429 with Retry-After past the per-subject
// cap.
func TestEventsStreamCap(t *testing.T) {
	ts := newTestServer(t, servertest.Options{StreamsPerSubject: 2})
	for i := 0; i < 2; i++ {
		c := ts.openEvents(api.PathEvents+"?repo=acme/api", ts.Admin)
		c.frame()
	}
	r := ts.Do(http.MethodGet, api.PathEvents+"?repo=acme/web", ts.Admin, nil)
	if r.Status != 429 || r.Header.Get("Retry-After") == "" || r.ErrorBody(t).Code() != api.CodeTooManyStreams {
		t.Fatalf("third stream: %d %v %s; want 429 too_many_streams with Retry-After", r.Status, r.Header, r.Body)
	}
	ts.Put("acme/api", map[string]string{"a.md": "1"}, nil, 200)
	m := string(ts.Send(false, http.MethodGet, api.PathMetrics, "", nil).Body)
	for _, want := range []string{"teammem_event_streams_open 2", "teammem_events_published_total 1",
		"teammem_event_slow_consumer_disconnects_total 0", "teammem_event_listen_reconnects_total 0", "teammem_events_delivered_total"} {
		if !strings.Contains(m, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
}

// TestEventsShutdown ends open streams when the hub closes.
func TestEventsShutdown(t *testing.T) {
	ts := newTestServer(t, servertest.Options{})
	c := ts.openEvents(api.PathEvents+"?repo=acme/api", ts.Admin)
	c.frame()
	ts.Hub.Close()
	done := make(chan error, 1)
	go func() {
		_, err := c.rd.ReadString('\n')
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Error("the stream went on after shutdown")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the stream stayed open after shutdown")
	}
	r := ts.Do(http.MethodGet, api.PathEvents+"?repo=acme/api", ts.Admin, nil)
	if r.Status != 503 {
		t.Errorf("after shutdown: %d; want 503", r.Status)
	}
}
