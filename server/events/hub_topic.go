package events

import (
	"context"
	"errors"
	"math"
	"sync"
	"time"

	"github.com/teammem/teammem/server"
)

// maxVersion asks a topic to read the Store for whatever it holds.
const maxVersion = math.MaxInt64

// maxOffered bounds the events of this process's writes a topic keeps
// while its pump is behind; past it, they are read from the Store.
const maxOffered = 1024

// item is one thing a subscriber is told: an event, a reset to a
// repository state (pull in full), or a proposal.
type item struct {
	event    *server.Event
	reset    *server.RepoState
	proposal *server.Proposal
}

// topic is the fan-out of one repository with subscribers: its pump
// goroutine sends every version after last to every subscriber, in order.
type topic struct {
	hub  *Hub
	repo string
	refs int // under hub.mu

	ready   chan struct{} // closed once initialised
	initErr error
	wake    chan struct{} // 1-buffered
	quit    chan struct{}

	mu      sync.Mutex
	last    int64 // the highest version fanned out
	want    int64 // the highest version known to exist (maxVersion: unknown)
	offered map[int64]*server.Event
	subs    map[*Subscription]struct{}
}

func newTopic(h *Hub, repo string) *topic {
	return &topic{hub: h, repo: repo, ready: make(chan struct{}), wake: make(chan struct{}, 1),
		quit: make(chan struct{}), offered: map[int64]*server.Event{},
		subs: map[*Subscription]struct{}{}}
}

func (t *topic) lock()   { t.mu.Lock() }
func (t *topic) unlock() { t.mu.Unlock() }

// init reads the current version once, by the subscriber that created the
// topic, and starts the pump; the others wait for it.
func (t *topic) init(ctx context.Context, created bool) error {
	if !created {
		select {
		case <-t.ready:
			return t.initErr
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	st, err := t.hub.state(ctx, t.repo)
	if err != nil {
		t.initErr = err
		close(t.ready)
		t.hub.mu.Lock()
		if t.hub.topics[t.repo] == t {
			delete(t.hub.topics, t.repo) // the next subscriber tries afresh
		}
		t.hub.mu.Unlock()
		return err
	}
	t.last, t.want = st.Version, st.Version
	close(t.ready)
	t.hub.pumps.Add(1)
	go t.pump()
	return nil
}

// add registers a subscriber.
func (t *topic) add(s *Subscription) {
	t.lock()
	defer t.unlock()
	t.subs[s] = struct{}{}
}

// remove unregisters a subscriber.
func (t *topic) remove(s *Subscription) {
	t.lock()
	defer t.unlock()
	delete(t.subs, s)
}

// notify records that version exists and wakes the pump.
func (t *topic) notify(version int64) {
	t.lock()
	if version > t.want {
		t.want = version
	}
	t.unlock()
	t.poke()
}

// offer hands the pump an event of this process's write.
func (t *topic) offer(ev *server.Event) {
	t.lock()
	if ev.Version > t.last && len(t.offered) < maxOffered {
		t.offered[ev.Version] = ev
	}
	if ev.Version > t.want {
		t.want = ev.Version
	}
	t.unlock()
	t.poke()
}

func (t *topic) poke() {
	select {
	case t.wake <- struct{}{}:
	default:
	}
}

// stop ends the pump (the last subscriber left).
func (t *topic) stop() {
	select {
	case <-t.quit:
	default:
		close(t.quit)
	}
}

// end ends every subscription with err and stops the pump.
func (t *topic) end(err error) {
	t.lock()
	for s := range t.subs {
		s.end(err)
	}
	clear(t.subs)
	t.unlock()
	t.stop()
}

// pump fans out every version after last once it is known to exist,
// reading from the Store what was not offered; a Store failure is retried
// with backoff while the subscribers wait.
func (t *topic) pump() {
	defer t.hub.pumps.Done()
	delay := time.Duration(0)
	for {
		if delay > 0 {
			if !t.sleep(delay) {
				return
			}
		} else {
			select {
			case <-t.wake:
			case <-t.quit:
				return
			}
		}
		delay = 0
		for {
			more, err := t.step()
			if err != nil {
				if t.hub.ctx.Err() != nil {
					return
				}
				t.hub.log.Warn("reading events failed; retrying", "repo", t.repo, "error", err)
				delay = min(max(2*delay, 100*time.Millisecond), 5*time.Second)
				break
			}
			if !more {
				break
			}
		}
	}
}

func (t *topic) sleep(d time.Duration) bool {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-t.quit:
		return false
	}
}

// step fans out the next versions and reports whether more may follow.
func (t *topic) step() (bool, error) {
	t.lock()
	last, want := t.last, t.want
	ev := t.offered[last+1]
	t.unlock()
	if want <= last {
		return false, nil
	}
	evs := []*server.Event{ev}
	if ev == nil {
		var err error
		evs, err = t.hub.store.Events(t.hub.ctx, t.repo, last, eventsPage)
		if errors.Is(err, server.ErrSinceTooOld) { // history was cut under the pump: everyone starts afresh
			return true, t.resetAll()
		}
		if err != nil {
			return false, err
		}
	}
	t.lock()
	defer t.unlock()
	if len(evs) == 0 { // nothing beyond last after all (a resync, a notice ahead of the store)
		if t.want == want {
			t.want = t.last
		}
		return false, nil
	}
	for _, ev := range evs {
		t.fanout(item{event: ev})
		t.last = ev.Version
	}
	for v := range t.offered {
		if v <= t.last {
			delete(t.offered, v)
		}
	}
	return true, nil
}

// resetAll tells every subscriber to start again from the current state.
func (t *topic) resetAll() error {
	st, err := t.hub.state(t.hub.ctx, t.repo)
	if err != nil {
		return err
	}
	t.lock()
	defer t.unlock()
	t.fanout(item{reset: &st})
	t.last = st.Version
	clear(t.offered)
	return nil
}

// fanout queues it for every subscriber, ending those whose queue is full;
// the caller holds the lock.
func (t *topic) fanout(it item) {
	for s := range t.subs {
		select {
		case s.ch <- it:
		default:
			delete(t.subs, s)
			t.hub.slow.Add(1)
			s.end(server.ErrSlowSubscriber)
		}
	}
}
