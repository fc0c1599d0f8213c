// Package events is the change-event fan-out of the server: the Hub tells
// every subscriber of a repository about its writes, those of this process
// as they commit and those of the other processes as their Broker's notices
// arrive, reading what it missed from the Store. Hub implements
// server.Events; LocalBroker is the server.Broker of a store one process
// uses (server/postgres has the one of processes sharing a database).
package events

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/teammem/teammem/server"
)

// Defaults of Options.
const (
	DefaultStreamBuffer      = 64
	DefaultStreamsPerSubject = 256
	DefaultMaxReplay         = 1000
	// eventsPage is how many versions one Store.Events read covers.
	eventsPage = 256
)

// Options tune a Hub. Zero values mean the defaults.
type Options struct {
	// Buffer is how many events may wait for one subscriber before it is
	// disconnected as too slow.
	Buffer int
	// MaxPerSubject bounds the open streams of one token subject; a
	// negative value means no bound.
	MaxPerSubject int
	// MaxReplay is how many versions a resuming subscriber may be behind
	// and still be replayed its events; further behind, it is told to
	// reset (pull in full), which costs less.
	MaxReplay int
	// Logger reports store failures while catching up; nil discards.
	Logger *slog.Logger
	// Review reads the proposals other processes announce (see
	// NotifyProposal); nil: their subscribers hear only of this
	// process's.
	Review server.ReviewStore
}

// Stats are the hub's counters since it was created.
type Stats struct {
	OpenStreams      int64 // subscriptions open now
	Published        int64 // events of this process's writes announced
	SlowDisconnects  int64 // subscriptions ended as too slow
	ListenReconnects int64 // resyncs after the broker lost notices
}

// Hub is one process's registry of event subscribers: it fans every
// version of a repository out to that repository's subscribers, in version
// order, each version once. Versions written through this process arrive
// with Publish; those of other processes as notices from the Broker (the
// Hub is its Receiver), after which the Hub reads the events from the
// Store. One goroutine per repository with subscribers reads and fans out;
// a subscriber's queue is bounded, and one that falls behind is
// disconnected rather than slowing the others. It is safe for concurrent
// use.
type Hub struct {
	store  server.Store
	broker server.Broker
	opts   Options
	log    *slog.Logger

	ctx    context.Context // of the pumps; canceled by Close
	cancel context.CancelFunc
	pumps  sync.WaitGroup

	mu       sync.Mutex
	topics   map[string]*topic
	subjects map[string]int
	closed   bool

	open, published, slow, reconnects atomic.Int64
	resynced                          atomic.Bool
}

var (
	_ server.Receiver         = (*Hub)(nil)
	_ server.Events           = (*Hub)(nil)
	_ server.ProposalEvents   = (*Hub)(nil)
	_ server.ProposalReceiver = (*Hub)(nil)
)

// NewHub returns a hub over store whose notices come from broker (nil
// means LocalBroker). Run must be called for the broker's notices to
// arrive.
func NewHub(store server.Store, broker server.Broker, opts Options) *Hub {
	if broker == nil {
		broker = LocalBroker{}
	}
	if opts.Buffer <= 0 {
		opts.Buffer = DefaultStreamBuffer
	}
	if opts.MaxPerSubject == 0 {
		opts.MaxPerSubject = DefaultStreamsPerSubject
	}
	if opts.MaxReplay <= 0 {
		opts.MaxReplay = DefaultMaxReplay
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Hub{store: store, broker: broker, opts: opts, log: opts.Logger, ctx: ctx, cancel: cancel,
		topics: map[string]*topic{}, subjects: map[string]int{}}
}

// Run receives the broker's notices until ctx ends.
func (h *Hub) Run(ctx context.Context) error { return h.broker.Listen(ctx, h) }

// Ready returns the broker's readiness: an error while notices of other
// processes may be missed.
func (h *Hub) Ready() error { return h.broker.Ready() }

// Stats returns the hub's counters.
func (h *Hub) Stats() Stats {
	return Stats{OpenStreams: h.open.Load(), Published: h.published.Load(),
		SlowDisconnects: h.slow.Load(), ListenReconnects: h.reconnects.Load()}
}

// Publish announces a write of this process that committed: its event
// goes to this process's subscribers without a Store read, and the broker
// tells the other processes. A broker failure is logged, never returned:
// the write stands. The broker is told in the background: the writer's
// answer never waits for a database that stopped answering (the broker
// bounds each notice itself).
func (h *Hub) Publish(ctx context.Context, ev *server.Event) {
	h.published.Add(1)
	if t := h.topic(ev.Repo); t != nil {
		t.offer(ev)
	}
	go func() {
		if err := h.broker.Publish(context.WithoutCancel(ctx), ev); err != nil {
			h.log.Warn("event notice not sent to the other servers; they catch up at the next one", "repo", ev.Repo,
				"version", ev.Version, "error", err)
		}
	}()
}

// Notify wakes the repository's fan-out when it has subscribers (Receiver).
func (h *Hub) Notify(repo string, version int64) {
	if t := h.topic(repo); t != nil {
		t.notify(version)
	}
}

// Resync makes every repository with subscribers read the Store for
// versions it may have missed (Receiver). Every resync but the first (the
// broker's first connection) counts as a reconnection.
func (h *Hub) Resync() {
	if h.resynced.Swap(true) {
		h.reconnects.Add(1)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, t := range h.topics {
		t.notify(maxVersion)
	}
}

// Close ends every subscription with server.ErrShuttingDown and refuses new ones;
// it waits for the fan-out goroutines to stop.
func (h *Hub) Close() {
	h.mu.Lock()
	h.closed = true
	topics := h.topics
	h.topics = map[string]*topic{}
	h.mu.Unlock()
	h.cancel()
	for _, t := range topics {
		t.end(server.ErrShuttingDown)
	}
	h.pumps.Wait()
}

func (h *Hub) topic(repo string) *topic {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.topics[repo]
}

// Subscribe opens a subscription to a canonical repository for subject.
// With resume set, the events after version after are replayed first
// (or, when after is before the history the store holds, after the
// current version, or more than MaxReplay versions behind, one reset);
// without it, only versions after the current one follow. Errors:
// server.ErrTooManyStreams, server.ErrShuttingDown, the Store's.
func (h *Hub) Subscribe(ctx context.Context, repo, subject string, after int64, resume bool) (server.Subscription, error) {
	var s *Subscription
	var err error
	shallow(func() { s, err = h.subscribe(ctx, repo, subject, after, resume) })
	if err != nil {
		return nil, err
	}
	return s, nil
}

func (h *Hub) subscribe(ctx context.Context, repo, subject string, after int64, resume bool) (*Subscription, error) {
	t, created, err := h.join(repo, subject)
	if err != nil {
		return nil, err
	}
	s := &Subscription{hub: h, t: t, subject: subject, ch: make(chan item, h.opts.Buffer), done: make(chan struct{})}
	if err := t.init(ctx, created); err != nil {
		h.leave(t, subject)
		return nil, err
	}
	t.add(s)
	// Read after joining: every version committed since comes through the
	// queue, every one before through this state or the replay.
	st, err := h.state(ctx, repo)
	if err != nil {
		s.Close()
		return nil, err
	}
	switch {
	case !resume:
		s.cursor = st.Version
	case after > st.Version || st.Version-after > int64(h.opts.MaxReplay):
		s.reset(st)
	default:
		s.cursor, s.replaying = after, true
	}
	return s, nil
}

// join counts a stream of subject on repo's topic, creating it when
// missing (created then says the caller must initialise it).
func (h *Hub) join(repo, subject string) (*topic, bool, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, false, server.ErrShuttingDown
	}
	if h.opts.MaxPerSubject > 0 && h.subjects[subject] >= h.opts.MaxPerSubject {
		return nil, false, fmt.Errorf("%w (%d)", server.ErrTooManyStreams, h.opts.MaxPerSubject)
	}
	h.subjects[subject]++
	h.open.Add(1)
	t, created := h.topics[repo], false
	if t == nil {
		t, created = newTopic(h, repo), true
		h.topics[repo] = t
	}
	t.refs++
	return t, created, nil
}

// leave undoes join; the last one to leave a topic stops it.
func (h *Hub) leave(t *topic, subject string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.open.Add(-1)
	if h.subjects[subject]--; h.subjects[subject] <= 0 {
		delete(h.subjects, subject)
	}
	if t.refs--; t.refs == 0 {
		if h.topics[t.repo] == t {
			delete(h.topics, t.repo)
		}
		t.stop()
	}
}

// state reads a repository's state; a never-written one is version 0.
func (h *Hub) state(ctx context.Context, repo string) (server.RepoState, error) {
	st, err := h.store.RepoState(ctx, repo)
	if errors.Is(err, server.ErrNotFound) {
		return server.RepoState{Repo: repo}, nil
	}
	return st, err
}

// shallow runs f on a goroutine of its own and waits for it. A store read
// (SQLite's in particular) grows the stack of the goroutine that makes it
// to tens of kilobytes, which a stream's long-lived goroutine would keep
// for as long as the stream lives: ten thousand streams would hold
// hundreds of megabytes of idle stack.
func shallow(f func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	<-done
}
