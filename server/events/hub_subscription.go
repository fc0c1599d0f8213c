package events

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/teammem/teammem/memcore/protocol"
	"github.com/teammem/teammem/server"
)

// Subscription is one subscriber of a repository's events (server.Subscription). Next must be
// called by one goroutine; Close may be called from any, also to
// interrupt Next.
type Subscription struct {
	hub     *Hub
	t       *topic
	subject string
	ch      chan item     // live updates from the topic's pump
	done    chan struct{} // closed by end
	endErr  error         // why the hub ended it; set before done closes
	endOnce sync.Once
	left    sync.Once

	// The reader's state.
	cursor    int64 // the last version told (or skipped by a reset)
	replaying bool  // events after cursor are still to be read from the Store
	pending   []item
}

// Next returns the next update in version order: first those replayed
// from the Store, then live ones, each version once and none skipped. It
// returns the zero server.Update when idle fires first (time for a heartbeat).
// Errors: ctx's; server.ErrSlowSubscriber or server.ErrShuttingDown when the hub ended
// the subscription; the Store's while replaying.
func (s *Subscription) Next(ctx context.Context, idle <-chan time.Time) (server.Update, error) {
	for {
		if len(s.pending) > 0 {
			it := s.pending[0]
			s.pending = s.pending[1:]
			return server.Update{Event: it.event, Reset: it.reset, Proposal: it.proposal}, nil
		}
		if s.replaying {
			var err error
			shallow(func() { err = s.fill(ctx) })
			if err != nil {
				return server.Update{}, err
			}
			continue
		}
		select {
		case it := <-s.ch:
			s.take(it)
		case <-s.done:
			return server.Update{}, s.endErr
		case <-ctx.Done():
			return server.Update{}, ctx.Err()
		case <-idle:
			return server.Update{}, nil
		}
	}
}

// take queues a live update unless it was already told. A version beyond
// the next one (never expected: the pump fans out every version) makes
// the subscription read the missing ones, and that one, from the Store.
// A proposal is queued as it comes: it is no version.
func (s *Subscription) take(it item) {
	if it.proposal != nil {
		s.pending = append(s.pending, it)
		return
	}
	if it.reset != nil {
		s.reset(*it.reset)
		return
	}
	switch v := it.event.Version; {
	case v <= s.cursor:
	case v > s.cursor+1:
		s.replaying = true
	default:
		s.cursor = v
		s.pending = append(s.pending, it)
	}
}

// fill queues the next page of events after cursor, read from the Store;
// a page shorter than asked ends the replay. A cursor before the Store's
// history becomes a reset.
func (s *Subscription) fill(ctx context.Context) error {
	evs, err := s.hub.store.Events(ctx, s.t.repo, s.cursor, eventsPage)
	if errors.Is(err, server.ErrSinceTooOld) {
		st, err := s.hub.state(ctx, s.t.repo)
		if err != nil {
			return err
		}
		s.reset(st)
		return nil
	}
	if err != nil {
		return err
	}
	if len(evs) < eventsPage {
		s.replaying = false
	}
	for _, ev := range evs {
		s.cursor = ev.Version
		s.pending = append(s.pending, item{event: ev})
	}
	return nil
}

// reset queues a reset to st, after which only later versions follow.
func (s *Subscription) reset(st server.RepoState) {
	if st.Version == 0 && st.Checksum == "" {
		st.Checksum = protocol.EmptyDatasetChecksum
	}
	s.replaying = false
	s.cursor = st.Version
	s.pending = append(s.pending[:0], item{reset: &st})
}

// end is the hub's: it ends the subscription with err.
func (s *Subscription) end(err error) {
	s.endOnce.Do(func() {
		s.endErr = err
		close(s.done)
	})
}

// Done is closed when the hub ended the subscription (too slow, shutting
// down).
func (s *Subscription) Done() <-chan struct{} { return s.done }

// Close unsubscribes. It is idempotent.
func (s *Subscription) Close() {
	s.left.Do(func() {
		s.end(context.Canceled)
		s.t.remove(s)
		s.hub.leave(s.t, s.subject)
	})
}
