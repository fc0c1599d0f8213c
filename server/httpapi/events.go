package httpapi

import (
	"bytes"
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/server"
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
// (too slow a reader, shutdown, a store failure while replaying) and the
// client resumes with Last-Event-ID.
func (h *handler) getEvents(w http.ResponseWriter, r *http.Request) error {
	repo := r.URL.Query().Get("repo")
	setLogRepo(r, logRepo(repo))
	after, resume, err := resumePoint(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	sctx, cancel := context.WithTimeout(ctx, h.timeout)
	sub, err := h.svc.Subscribe(sctx, principal(ctx), repo, after, resume)
	cancel()
	if err != nil {
		return err
	}
	defer sub.Close()
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Time{}) // the server's read timeout would cancel a long stream
	hd := w.Header()
	hd.Set("Content-Type", "text/event-stream; charset=utf-8")
	hd.Set("Cache-Control", "no-cache")
	hd.Set("X-Accel-Buffering", "no") // nginx: do not buffer the stream
	w.WriteHeader(http.StatusOK)
	s := &stream{w: w, rc: rc, timeout: h.streamWriteTimeout}
	if !s.send([]byte("retry: " + strconv.Itoa(int(streamRetry/time.Millisecond)) + "\n\n")) {
		return nil
	}
	idle := time.NewTimer(h.heartbeat)
	defer idle.Stop()
	for {
		u, err := sub.Next(ctx, idle.C)
		if err != nil {
			return nil // the client resumes with Last-Event-ID
		}
		var frame []byte
		switch {
		case u.Event != nil:
			frame = u.Event.Encoded(encodeEvent)
		case u.Reset != nil:
			frame = encodeReset(u.Reset)
		default:
			frame = heartbeatFrame
		}
		if !s.send(frame) {
			return nil
		}
		if u.Event != nil {
			h.metrics.eventsDelivered.Inc()
		}
		idle.Reset(h.heartbeat)
	}
}

// heartbeatFrame is the comment that keeps proxies from closing an idle
// stream.
var heartbeatFrame = []byte(": keep-alive\n\n")

// stream writes frames, each within its own deadline, so that a reader
// that stopped reading is let go.
type stream struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
}

func (s *stream) send(frame []byte) bool {
	_ = s.rc.SetWriteDeadline(time.Now().Add(s.timeout))
	if _, err := s.w.Write(frame); err != nil {
		return false
	}
	return s.rc.Flush() == nil
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
	v, err := optionalInt(r.URL.Query(), "after")
	return v, err == nil, err
}

// encodeEvent encodes a change event's frame: id, event type and data.
func encodeEvent(ev *server.Event) []byte {
	data, _ := marshal(api.Event{Repo: ev.Repo, Version: ev.Version, Checksum: ev.Checksum,
		Changed: nonNil(ev.Changed), Deleted: nonNil(ev.Deleted), Author: ev.Author, At: formatTime(ev.At)})
	return frame(strconv.FormatInt(ev.Version, 10), api.EventChange, data)
}

// encodeReset encodes a reset's frame. It carries no id, so that a client
// that reconnects before pulling in full is told to reset again.
func encodeReset(st *server.RepoState) []byte {
	data, _ := marshal(api.Reset{Repo: st.Repo, Version: st.Version, Checksum: st.Checksum})
	return frame("", api.EventReset, data)
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
