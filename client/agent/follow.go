package agent

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/client"
)

// EventSource opens a repository's event stream resuming after a version;
// satisfied by *client.Client.
type EventSource interface {
	Events(ctx context.Context, repo string, after int64) (*client.EventStream, error)
}

var _ EventSource = (*client.Client)(nil)

// States of a Follower's stream.
const (
	StreamConnecting  = "connecting"
	StreamConnected   = "connected"
	StreamDown        = "down"        // reconnecting with backoff; the engine polls meanwhile
	StreamUnsupported = "unsupported" // the server has no events stream; the engine polls
)

// StreamState is what a Follower reports of its stream (status shows it).
type StreamState struct {
	Repo           string     `json:"repo"`
	State          string     `json:"state"`
	ConnectedSince *time.Time `json:"connectedSince,omitempty"`
	LastEvent      *time.Time `json:"lastEvent,omitempty"`
	LastVersion    int64      `json:"lastVersion"`
	Reconnects     int        `json:"reconnects"`
	Error          string     `json:"error,omitempty"`
}

// FollowOptions tune a Follower.
type FollowOptions struct {
	// Backoff is the first delay before reconnecting, doubled (with
	// jitter) per failure up to MaxBackoff; 0 means 1 s and 1 min.
	Backoff, MaxBackoff time.Duration
	// Unsupported is the delay before trying again a server without an
	// events stream; 0 means 5 min.
	Unsupported time.Duration
	// OnState receives every change of the stream's state, on the
	// follower's goroutine. May be nil.
	OnState func(StreamState)
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Follower keeps one repository's event stream open: it reconnects with
// backoff, resuming after the last version it saw (Last-Event-ID), and
// coalesces what arrives into one pending signal that its owner takes
// with Take. It is self-contained: one per repository, each with its own
// goroutine (Run); Changes, Take, Healthy and State are safe for use from
// any goroutine.
type Follower struct {
	src  EventSource
	repo string
	opts FollowOptions

	changes chan struct{} // 1-buffered: something to Take

	mu      sync.Mutex
	state   StreamState
	pending int64   // the newest version announced and not yet taken
	reset   bool    // a reset arrived and was not yet taken
	decided []int64 // the proposals announced decided, not yet taken
}

// NewFollower returns the follower of repo's stream from src.
func NewFollower(src EventSource, repo string, opts FollowOptions) *Follower {
	setDefault(&opts.Backoff, time.Second)
	setDefault(&opts.MaxBackoff, time.Minute)
	setDefault(&opts.Unsupported, 5*time.Minute)
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Follower{src: src, repo: repo, opts: opts, changes: make(chan struct{}, 1),
		state: StreamState{Repo: repo, State: StreamConnecting}}
}

// Changes is signalled when an event or a reset is waiting for Take, or a
// decided proposal for TakeDecided.
func (f *Follower) Changes() <-chan struct{} { return f.changes }

// Take returns the newest version announced since the last Take (0 when
// none) and whether the server said to reset (pull in full).
func (f *Follower) Take() (version int64, reset bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	version, reset = f.pending, f.reset
	f.pending, f.reset = 0, false
	return version, reset
}

// TakeDecided returns the proposals the stream announced decided since the
// last call (the server tells a proposal's author of its decision).
func (f *Follower) TakeDecided() []int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	ids := f.decided
	f.decided = nil
	return ids
}

// Healthy reports whether the stream is connected, so that polling can
// slow down to a safety net.
func (f *Follower) Healthy() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.state.State == StreamConnected
}

// State returns the stream's current state.
func (f *Follower) State() StreamState {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.state
}

// Run follows the stream, resuming after version after, until ctx ends.
func (f *Follower) Run(ctx context.Context, after int64) {
	b := newBackoff(f.opts.Backoff, f.opts.MaxBackoff)
	connected := false
	for ctx.Err() == nil {
		s, err := f.src.Events(ctx, f.repo, after)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			delay := b.next(client.RetryAfter(err))
			state := StreamDown
			if errors.Is(err, client.ErrEventsUnsupported) {
				state, delay = StreamUnsupported, f.opts.Unsupported
			}
			f.update(func(st *StreamState) { st.State, st.ConnectedSince, st.Error = state, nil, err.Error() })
			sleepCtx(ctx, delay)
			continue
		}
		now := f.opts.Now()
		f.update(func(st *StreamState) {
			st.State, st.ConnectedSince, st.Error = StreamConnected, &now, ""
			if connected {
				st.Reconnects++
			}
		})
		connected = true
		b.reset()
		after, err = f.read(s, after)
		s.Close()
		if ctx.Err() != nil {
			return
		}
		f.update(func(st *StreamState) { st.State, st.ConnectedSince, st.Error = StreamDown, nil, errText(err) })
		sleepCtx(ctx, b.next(s.Retry()))
	}
}

// read takes the stream's events until it ends and returns the version to
// resume after.
func (f *Follower) read(s *client.EventStream, after int64) (int64, error) {
	for {
		ev, err := s.Next()
		switch {
		case errors.Is(err, client.ErrInvalidResponse) && !errors.Is(err, client.ErrNetwork):
			continue // one event that did not decode; the stream goes on
		case err != nil:
			return after, err
		}
		if ev.Proposal != nil {
			if ev.Proposal.State != api.ProposalOpen {
				f.signalDecided(ev.Proposal.ID)
			}
			continue
		}
		now := f.opts.Now()
		if ev.Reset || ev.Version > after {
			after = ev.Version
			f.signal(ev.Version, ev.Reset)
		}
		f.update(func(st *StreamState) { st.LastEvent, st.LastVersion = &now, ev.Version })
	}
}

// signal records an announced version (or a reset) for Take.
func (f *Follower) signal(version int64, reset bool) {
	f.mu.Lock()
	f.pending = max(f.pending, version)
	f.reset = f.reset || reset
	f.mu.Unlock()
	f.wake()
}

// signalDecided records a proposal announced decided for TakeDecided.
func (f *Follower) signalDecided(id int64) {
	f.mu.Lock()
	if len(f.decided) < maxDecided {
		f.decided = append(f.decided, id)
	}
	f.mu.Unlock()
	f.wake()
}

// maxDecided bounds the decided proposals kept for TakeDecided; past it,
// the engine's poll asks after its own.
const maxDecided = 1024

// wake signals Changes.
func (f *Follower) wake() {
	select {
	case f.changes <- struct{}{}:
	default:
	}
}

// update changes the state and reports it.
func (f *Follower) update(change func(*StreamState)) {
	f.mu.Lock()
	change(&f.state)
	st := f.state
	f.mu.Unlock()
	if f.opts.OnState != nil {
		f.opts.OnState(st)
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
