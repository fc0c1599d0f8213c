package server

import "context"

// Broker carries change notices between the server processes that share a
// Store, so that each process's events fan-out (server/events.Hub) can
// tell its own subscribers about writes made through the others. A notice
// is small (a repository and a version); each process reads the events
// themselves from the Store. Implementations: server/events.LocalBroker
// (one process, the embedded store) and server/postgres's LISTEN/NOTIFY
// broker.
type Broker interface {
	// Publish tells the other processes that ev's repository reached
	// ev.Version. It is called after the write committed, and may be
	// called from many goroutines at once. An error is the transport's:
	// the write stands, and the other processes learn of it with the
	// repository's next notice or their next resync.
	Publish(ctx context.Context, ev *Event) error

	// Listen receives the notices of every process (this one's included)
	// until ctx ends, handing each to r.Notify, and calls r.Resync each
	// time it starts receiving (its first connection and every
	// reconnection: notices sent while nothing listened are lost). It
	// returns nil when ctx ends, and is called once.
	Listen(ctx context.Context, r Receiver) error

	// Ready returns nil while notices are being received, and an error
	// while some may be missed (a broken connection being re-established).
	// It is safe for concurrent use.
	Ready() error
}

// Receiver is what a Broker delivers notices to (server/events.Hub). Its methods must
// return quickly and are safe for concurrent use.
type Receiver interface {
	// Notify says that repo reached version.
	Notify(repo string, version int64)
	// Resync says that notices may have been lost: every subscriber is
	// caught up from the Store.
	Resync()
}

// ProposalBroker is a Broker that also tells the other processes of a
// proposal made, amended or decided, so that their subscribers hear of it
// (server/postgres's broker is one). A notice names the proposal; each
// process reads it from its ReviewStore.
type ProposalBroker interface {
	// PublishProposal tells the other processes (never this one) that
	// proposal id of repo changed. An error is the transport's: the
	// proposal stands, and the other processes' subscribers miss the
	// notice (they read the proposals when they need them).
	PublishProposal(ctx context.Context, repo string, id int64) error
}

// ProposalReceiver is a Receiver that takes proposal notices
// (server/events.Hub). NotifyProposal must return quickly and is safe for
// concurrent use.
type ProposalReceiver interface {
	NotifyProposal(repo string, id int64)
}
