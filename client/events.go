package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/teammem/teammem/api"
)

// EventChange is the SSE event type of a change event.
const EventChange = api.EventChange

// DefaultStreamIdle is how long an events stream may stay silent (no
// event, no keep-alive comment) before it counts as broken: three of the
// server's 15 s heartbeats.
const DefaultStreamIdle = 45 * time.Second

// StreamEvent is one event of the stream: a change, or (Reset set) the
// server saying that it cannot replay what the client missed, after which
// the client must pull in full; Event then holds only Repo, Version and
// Checksum of the current state. Or (Proposal set, Event zero) a proposal
// of the repository made, amended or decided, which the server tells its
// reviewers and the proposal's author.
type StreamEvent struct {
	api.Event
	Reset    bool
	Proposal *api.Proposal
}

// Events opens the change stream of repo (GET .../events, Server-Sent
// Events). after, when not negative, resumes after that version: the
// server replays the events since then first (0: since the repository's
// first version, or one reset when that is more than it replays), so that
// no version committed between a caller's pull and its subscription goes
// unannounced; negative follows from the current version on. The stream lives until ctx ends or
// Close; Options.Timeout does not apply to it.
//
// Errors: ErrEventsUnsupported (wrapped, with the *APIError when there is
// one) when the server has no stream (404, 405, 501, or a 2xx that is not
// text/event-stream), so that the caller falls back to polling; otherwise
// those of Get.
func (c *Client) Events(ctx context.Context, repo string, after int64) (*EventStream, error) {
	q, err := repoQuery(repo)
	if err != nil {
		return nil, fmt.Errorf("open events: %w", err)
	}
	h := http.Header{"Accept": {"text/event-stream"}, "Cache-Control": {"no-cache"}}
	if after >= 0 {
		q.Set("after", strconv.FormatInt(after, 10))
		h.Set("Last-Event-ID", strconv.FormatInt(after, 10))
	}
	ctx, cancelCause := context.WithCancelCause(ctx)
	cancel := func() { cancelCause(nil) }
	resp, err := c.send(ctx, request{method: http.MethodGet, path: api.PathEvents, query: q, header: h, auth: true})
	if err == nil {
		err = c.checkEventsResponse(ctx, resp)
	}
	if err != nil {
		cancel()
		return nil, fmt.Errorf("open events %s: %w", repo, err)
	}
	body := newIdleReader(resp.Body, c.idle, func() { cancelCause(errStreamIdle) })
	return &EventStream{ctx: ctx, cancel: cancel, body: body, sse: newSSEReader(body)}, nil
}

// checkEventsResponse accepts a 2xx text/event-stream response; it closes the
// body of any other.
func (c *Client) checkEventsResponse(ctx context.Context, resp *http.Response) error {
	err := c.checkStatus(ctx, resp)
	var apiErr *APIError
	switch {
	case errors.As(err, &apiErr) && isUnsupportedStatus(apiErr.Status):
		err = fmt.Errorf("%w: %w", ErrEventsUnsupported, apiErr)
	case err == nil && !isEventStream(resp.Header.Get("Content-Type")):
		err = fmt.Errorf("%w: content type %q", ErrEventsUnsupported, resp.Header.Get("Content-Type"))
	}
	if err != nil {
		resp.Body.Close()
	}
	return err
}

// isUnsupportedStatus reports statuses that mean "no such stream here".
func isUnsupportedStatus(status int) bool {
	return status == http.StatusNotFound || status == http.StatusMethodNotAllowed ||
		status == http.StatusNotImplemented
}

// isEventStream reports whether a Content-Type is text/event-stream.
func isEventStream(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "text/event-stream"
}

// EventStream reads change events from an open events stream. Next is not
// safe for concurrent use; Close may be called from any goroutine, also to
// interrupt a blocked Next.
type EventStream struct {
	ctx    context.Context
	cancel context.CancelFunc
	body   io.ReadCloser
	sse    *sseReader

	mu     sync.Mutex
	lastID string
	retry  time.Duration
	closed bool
}

// Next blocks until the next change, reset or proposal event and returns
// it. Events of other types are skipped. Errors: io.EOF when the server ended the
// stream or after Close; the context's error when it ended; ErrNetwork when
// the connection broke or stayed silent for Options.StreamIdle (reconnect
// with LastEventID after Retry); ErrInvalidResponse for an event whose data
// does not decode (the stream stays usable).
func (s *EventStream) Next() (StreamEvent, error) {
	for {
		raw, err := s.sse.next()
		s.remember()
		if err != nil {
			return StreamEvent{}, s.readError(err)
		}
		var ev StreamEvent
		var into any = &ev.Event
		switch raw.Event {
		case EventChange, "":
		case api.EventReset:
			ev.Reset = true
		case api.EventProposal:
			ev.Proposal = &api.Proposal{}
			into = ev.Proposal
		default:
			continue
		}
		if err := json.Unmarshal([]byte(raw.Data), into); err != nil {
			return StreamEvent{}, fmt.Errorf("decode event %q: %w: %v", raw.ID, ErrInvalidResponse, err)
		}
		return ev, nil
	}
}

// readError maps the end of the stream to io.EOF, cancellation to the
// context's error and anything else to ErrNetwork.
func (s *EventStream) readError(err error) error {
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	switch {
	case closed || err == io.EOF:
		return io.EOF
	case context.Cause(s.ctx) == errStreamIdle:
		return fmt.Errorf("%w: %w", ErrNetwork, errStreamIdle)
	case s.ctx.Err() != nil:
		return context.Cause(s.ctx)
	case errors.Is(err, ErrInvalidResponse):
		return err
	}
	return classify(s.ctx, err)
}

// remember publishes the parser's last event id and retry advice.
func (s *EventStream) remember() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lastID, s.retry = s.sse.lastID, s.sse.retry
}

// LastEventID returns the id of the last event read (the version, as a
// string), "" before the first; pass it, parsed, as after when reconnecting.
func (s *EventStream) LastEventID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastID
}

// Retry returns the reconnection delay the server advised with "retry:",
// 0 when it gave none.
func (s *EventStream) Retry() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.retry
}

// Close ends the stream and releases the connection. It is idempotent.
func (s *EventStream) Close() error {
	s.mu.Lock()
	already := s.closed
	s.closed = true
	s.mu.Unlock()
	if already {
		return nil
	}
	s.cancel()
	return s.body.Close()
}

// errStreamIdle is the cause of a stream given up for its silence.
var errStreamIdle = errors.New("no event or keep-alive from the server for too long")

// idleReader calls onIdle when no byte arrived for the idle time, so that a
// connection lost without a word (a laptop's sleep, a dropped NAT entry)
// is noticed by the three missed keep-alives.
type idleReader struct {
	io.ReadCloser
	idle  time.Duration
	timer *time.Timer
}

func newIdleReader(body io.ReadCloser, idle time.Duration, onIdle func()) *idleReader {
	return &idleReader{ReadCloser: body, idle: idle, timer: time.AfterFunc(idle, onIdle)}
}

func (r *idleReader) Read(p []byte) (int, error) {
	n, err := r.ReadCloser.Read(p)
	if n > 0 {
		r.timer.Reset(r.idle)
	}
	return n, err
}

func (r *idleReader) Close() error {
	r.timer.Stop()
	return r.ReadCloser.Close()
}
