package server

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Events is the change-event fan-out the Service publishes its committed
// writes to and opens subscriptions from. server/events implements it.
type Events interface {
	// Publish announces a write of this process that committed. It never
	// fails the write: a transport error is the fan-out's to report.
	Publish(ctx context.Context, ev *Event)
	// Subscribe opens a subscription to a canonical repository for a
	// token subject. With resume set, the events after version after are
	// replayed first (or one reset when they cannot be); without it, only
	// versions after the current one follow. Errors: ErrTooManyStreams,
	// ErrShuttingDown, the Store's.
	Subscribe(ctx context.Context, repo, subject string, after int64, resume bool) (Subscription, error)
}

// Subscription is one subscriber of a repository's events. Next must be
// called by one goroutine; Close may be called from any, also to
// interrupt Next.
type Subscription interface {
	// Next returns the next update in version order, each version once
	// and none skipped, or the zero Update when idle fires first (time
	// for a heartbeat). Errors: ctx's; ErrSlowSubscriber or
	// ErrShuttingDown when the fan-out ended the subscription; the
	// Store's while replaying.
	Next(ctx context.Context, idle <-chan time.Time) (Update, error)
	// Done is closed when the fan-out ended the subscription (too slow,
	// shutting down).
	Done() <-chan struct{}
	// Close unsubscribes. It is idempotent.
	Close()
}

// Update is what a subscriber is told next: an event, a reset to the
// repository's current state (the subscriber must pull in full; the
// events after it follow), or a proposal of the repository made, amended
// or decided (not a version: it comes beside the events, in no order with
// them, and is never replayed). A Proposal is shared by every subscriber
// and must not be modified.
type Update struct {
	Event    *Event
	Reset    *RepoState
	Proposal *Proposal
}

// IsZero reports an update that tells nothing (Next's idle return).
func (u Update) IsZero() bool { return u.Event == nil && u.Reset == nil && u.Proposal == nil }

// Errors of the events stream.
var (
	// ErrTooManyStreams: the token subject already holds as many open
	// streams as the fan-out allows.
	ErrTooManyStreams = errors.New("too many open event streams for this token")
	// ErrSlowSubscriber ends a subscription whose reader fell too far
	// behind; it resumes with Last-Event-ID.
	ErrSlowSubscriber = errors.New("event stream reader too slow")
	// ErrShuttingDown ends every subscription when the fan-out closes; it
	// wraps ErrUnavailable.
	ErrShuttingDown = fmt.Errorf("server shutting down: %w", ErrUnavailable)
	// errNoEvents refuses a subscription to a Service configured without
	// a fan-out.
	errNoEvents = fmt.Errorf("no events stream on this server: %w", ErrUnavailable)
)

// noEvents is the fan-out of a Service configured without one: writes
// are told to nobody, and subscribing fails.
type noEvents struct{}

func (noEvents) Publish(context.Context, *Event) {}

func (noEvents) Subscribe(context.Context, string, string, int64, bool) (Subscription, error) {
	return nil, errNoEvents
}
