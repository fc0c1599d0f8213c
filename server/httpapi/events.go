package httpapi

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/httpkit"
)

// Defaults of the events stream (protocol §6).
const (
	DefaultHeartbeat          = 15 * time.Second
	DefaultStreamWriteTimeout = 10 * time.Second
	// streamRetry is the reconnection delay advised to EventSource clients.
	streamRetry = 2 * time.Second
)

// getEvents serves GET .../events?repo=R[&after=V]: the repository's
// changes as Server-Sent Events. Last-Event-ID (or after) resumes: the
// events after that version are replayed first, then live ones follow,
// each version once. Errors before the stream starts are the usual
// envelopes (auth exactly as for GET); afterwards the stream just ends
// (too slow a reader, shutdown, a store failure while replaying, its token
// revoked or expired: checked again once per heartbeat interval) and the
// client resumes with Last-Event-ID.
func (h *handler) getEvents(w http.ResponseWriter, r *http.Request) error {
	repo := r.URL.Query().Get("repo")
	httpkit.SetLogRepo(r, httpkit.LogRepo(repo))
	after, resume, err := resumePoint(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	sctx, cancel := context.WithTimeout(ctx, h.timeout)
	sub, err := h.svc.Subscribe(sctx, httpkit.Principal(ctx), repo, after, resume)
	cancel()
	if err != nil {
		return err
	}
	valid := h.mw.StillValid(r)
	hd := w.Header()
	hd.Set("Content-Type", "text/event-stream; charset=utf-8")
	hd.Set("Cache-Control", "no-cache")
	hd.Set("X-Accel-Buffering", "no") // nginx: do not buffer the stream
	if out, taken := hijackStream(w, r, h.streamWriteTimeout); taken {
		if out == nil { // the client left before the head was written
			sub.Close()
			return nil
		}
		// The connection is the stream's now: net/http's goroutines and
		// buffers for it are gone, and the stream goes on in a goroutine
		// of its own with a small stack, so that an open stream holds
		// little of the server's memory. The access line is written when
		// it opens.
		go h.pump(context.Background(), sub, out, valid)
		return nil
	}
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Time{}) // the server's read timeout would cancel a long stream
	w.WriteHeader(http.StatusOK)
	h.pump(ctx, sub, &responseStream{w: w, rc: rc, timeout: h.streamWriteTimeout}, valid)
	return nil
}

// pump sends the retry advice, then every update of sub as it comes, with
// a heartbeat after each idle period, until sub ends, ctx is done or a
// write fails, or valid (checked once per heartbeat interval) reports
// false; then it closes both. The client resumes with Last-Event-ID.
func (h *handler) pump(ctx context.Context, sub server.Subscription, out frameWriter, valid func() bool) {
	defer out.close()
	defer sub.Close()
	if !out.send(retryChunk) {
		return
	}
	idle := time.NewTimer(h.heartbeat)
	defer idle.Stop()
	checked := time.Now()
	for {
		u, err := sub.Next(ctx, idle.C)
		if err != nil {
			return
		}
		if time.Since(checked) >= h.heartbeat { // a revoked token's stream ends; its reconnection gets a 401
			if !valid() {
				return
			}
			checked = time.Now()
		}
		var c []byte
		switch {
		case u.Event != nil:
			c = h.chunks.of(u.Event) // once for every stream that sends it
		case u.Reset != nil:
			c = chunk(encodeReset(u.Reset))
		case u.Proposal != nil:
			c = chunk(encodeProposal(u.Proposal))
		default:
			c = heartbeatChunk
		}
		if !out.send(c) {
			return
		}
		if u.Event != nil {
			h.metrics.EventDelivered()
		}
		idle.Reset(h.heartbeat)
	}
}

// The frames every stream sends: the retry advice first, and the comment
// that keeps proxies from closing an idle stream. Like events, they are
// kept as chunks (see frameWriter).
var (
	retryChunk     = chunk([]byte("retry: " + strconv.Itoa(int(streamRetry/time.Millisecond)) + "\n\n"))
	heartbeatChunk = chunk([]byte(": keep-alive\n\n"))
)

// encodeEventChunk is encodeEvent as a chunk.
func encodeEventChunk(e *server.Event) []byte { return chunk(encodeEvent(e)) }

// frameWriter is where a stream's frames go, each given as one chunk of a
// chunked HTTP/1.1 body (see chunk): a hijacked connection writes it as it
// is, the ResponseWriter its frame only. An event is so framed once for
// all its streams. Each send is bounded by the stream write timeout, so
// that a reader that stopped reading is let go.
type frameWriter interface {
	send(chunk []byte) bool
	close()
}

// responseStream writes frames through the ResponseWriter (HTTP/2, and
// HTTP/1.0 clients, which cannot take a chunked body).
type responseStream struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
}

func (s *responseStream) send(c []byte) bool {
	_ = s.rc.SetWriteDeadline(time.Now().Add(s.timeout))
	if _, err := s.w.Write(chunkFrame(c)); err != nil {
		return false
	}
	return s.rc.Flush() == nil
}

func (s *responseStream) close() {} // the handler's return ends the response

// connStream writes frames as HTTP/1.1 chunks straight to a hijacked
// connection. It never reads: a client that went away is noticed by a
// failing write, at the latest the second heartbeat after it left.
type connStream struct {
	conn    net.Conn
	timeout time.Duration
}

// hijackStream takes over an HTTP/1.1 connection and writes the stream's
// response head with w's headers. taken is false when the connection
// cannot be taken (HTTP/2, HTTP/1.0) and the ResponseWriter must be used;
// the stream is nil when the head could not be written.
func hijackStream(w http.ResponseWriter, r *http.Request, timeout time.Duration) (s *connStream, taken bool) {
	if !r.ProtoAtLeast(1, 1) || r.ProtoMajor != 1 {
		return nil, false
	}
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return nil, false
	}
	// Bytes the client pipelined after this request are dropped with
	// net/http's buffers: nothing can follow an endless response.
	_ = conn.SetReadDeadline(time.Time{})
	hd := w.Header()
	hd.Set("Date", time.Now().UTC().Format(http.TimeFormat))
	hd.Set("Transfer-Encoding", "chunked")
	var head bytes.Buffer
	head.WriteString("HTTP/1.1 200 OK\r\n")
	_ = hd.Write(&head)
	head.WriteString("\r\n")
	s = &connStream{conn: conn, timeout: timeout}
	if !s.write(head.Bytes()) {
		conn.Close()
		return nil, true
	}
	return s, true
}

// send writes the chunk in one write: the connection is wrapped
// (connection count, error envelopes), so a vectored write would become a
// system call per part.
func (s *connStream) send(c []byte) bool { return s.write(c) }

// chunk encodes frame as one chunk of a chunked HTTP/1.1 body.
func chunk(frame []byte) []byte {
	b := make([]byte, 0, len(frame)+12)
	b = strconv.AppendInt(b, int64(len(frame)), 16)
	b = append(b, "\r\n"...)
	b = append(b, frame...)
	return append(b, "\r\n"...)
}

// chunkFrame returns the frame a chunk holds.
func chunkFrame(c []byte) []byte {
	i := bytes.Index(c, []byte("\r\n"))
	return c[i+2 : len(c)-2]
}

func (s *connStream) write(p []byte) bool {
	_ = s.conn.SetWriteDeadline(time.Now().Add(s.timeout))
	_, err := s.conn.Write(p)
	return err == nil
}

// close ends the chunked body, so that the client reads a clean end, and
// the connection.
func (s *connStream) close() {
	s.write([]byte("0\r\n\r\n"))
	s.conn.Close()
}

// resumePoint reads Last-Event-ID, else ?after: the version to resume
// after, and whether one was given.
func resumePoint(r *http.Request) (int64, bool, error) {
	if id := strings.TrimSpace(r.Header.Get("Last-Event-ID")); id != "" {
		v, err := strconv.ParseInt(id, 10, 64)
		if err != nil || v < 0 {
			return 0, false, server.InvalidParameter("Last-Event-ID must be a version number, got %q", truncate(id))
		}
		return v, true, nil
	}
	if _, ok := r.URL.Query()["after"]; !ok {
		return 0, false, nil
	}
	v, err := httpkit.OptionalInt(r.URL.Query(), "after")
	return v, err == nil, err
}

// encodeEvent encodes a change event's frame: id, event type and data.
func encodeEvent(ev *server.Event) []byte {
	data, _ := marshal(api.Event{Repo: ev.Repo, Version: ev.Version, Checksum: ev.Checksum,
		Changed: nonNil(ev.Changed), Deleted: nonNil(ev.Deleted), Author: ev.Author, At: formatTime(ev.At),
		Provenance: wireProvenance(ev.Provenance)})
	return frame(strconv.FormatInt(ev.Version, 10), api.EventChange, data)
}

// encodeReset encodes a reset's frame. It carries no id, so that a client
// that reconnects before pulling in full is told to reset again.
func encodeReset(st *server.RepoState) []byte {
	data, _ := marshal(api.Reset{Repo: st.Repo, Version: st.Version, Checksum: st.Checksum})
	return frame("", api.EventReset, data)
}

// encodeProposal encodes a proposal's frame, without an id: it is no
// version, so a client resuming with Last-Event-ID is not moved by it.
func encodeProposal(p *server.Proposal) []byte {
	data, _ := marshal(WireProposal(*p))
	return frame("", api.EventProposal, data)
}

func frame(id, event string, data []byte) []byte {
	var b bytes.Buffer
	if id != "" {
		b.WriteString("id: " + id + "\n")
	}
	b.WriteString("event: " + event + "\ndata: ")
	b.Write(bytes.TrimRight(data, "\n"))
	b.WriteString("\n\n")
	return b.Bytes()
}
