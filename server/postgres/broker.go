package postgres

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/teammem/teammem/server"
)

// eventsChannel is the LISTEN/NOTIFY channel of change notices.
const eventsChannel = "teammem_events"

// Timings of the LISTEN connection.
const (
	// listenProbe is how long the LISTEN connection may stay silent
	// before it is pinged, so that a connection lost without a word (a
	// network partition) is noticed.
	listenProbe = 30 * time.Second
	// pingTimeout bounds the probe of a silent LISTEN connection.
	pingTimeout = 5 * time.Second
	maxBackoff  = 5 * time.Second
)

// notice is the payload of a NOTIFY: small, the events themselves are read
// from the revisions. A proposal's notice names it instead of a version
// (a process that predates them reads version 0: nothing new) and the
// broker that sent it, which ignores its own: its process told its
// subscribers already.
type notice struct {
	Repo     string `json:"repo"`
	Version  int64  `json:"version"`
	Proposal int64  `json:"proposal,omitempty"`
	Origin   string `json:"origin,omitempty"`
}

// Broker is the server.Broker of processes sharing one database: a write
// is announced by a NOTIFY inside its transaction, which PostgreSQL
// delivers when the write commits (see group.commit), and each process LISTENs
// on a connection of its own, reconnecting with backoff (and resyncing
// its subscribers from the revisions) when the connection is lost. It is
// safe for concurrent use.
type Broker struct {
	db  *DB
	cfg *pgx.ConnConfig
	log *slog.Logger
	// OnListen, when set, is called with the backend process id of each
	// new LISTEN connection (tests kill it with pg_terminate_backend).
	OnListen func(pid uint32)
	// Backoff is the first delay before reconnecting, doubled per failure
	// up to 5 s; 0 means 100 ms.
	Backoff time.Duration

	origin string // this broker's name in its proposal notices

	mu       sync.Mutex
	notReady error
}

var (
	_ server.Broker         = (*Broker)(nil)
	_ server.ProposalBroker = (*Broker)(nil)
)

// NewBroker returns the broker of db's database; log reports lost
// connections (nil discards).
func (db *DB) NewBroker(log *slog.Logger) *Broker {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Broker{db: db, cfg: db.pool.Config().ConnConfig.Copy(), log: log, origin: rand.Text(),
		notReady: errors.New("events: not listening yet")}
}

// Publish does nothing: the write's own transaction sent the notice
// (NOTIFY inside the transaction, delivered by PostgreSQL when, and only
// when, it commits), so a notice is neither lost between the commit and a
// later NOTIFY nor sent for a write that rolled back, and it costs no
// extra round trip.
func (b *Broker) Publish(context.Context, *server.Event) error { return nil }

// PublishProposal sends a proposal's notice to the other processes
// (server.ProposalBroker). Proposals are no versions: the notice is a
// NOTIFY of its own, after the proposal committed.
func (b *Broker) PublishProposal(ctx context.Context, repo string, id int64) error {
	payload, _ := json.Marshal(notice{Repo: repo, Proposal: id, Origin: b.origin})
	ctx, cancel := context.WithTimeout(ctx, pingTimeout)
	defer cancel()
	if _, err := b.db.pool.Exec(ctx, notify, eventsChannel, string(payload)); err != nil {
		return fmt.Errorf("notify proposal #%d of %s: %w", id, repo, err)
	}
	return nil
}

// Ready returns nil while the LISTEN connection is up.
func (b *Broker) Ready() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.notReady
}

func (b *Broker) setReady(err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.notReady = err
}

// Listen keeps a LISTEN connection until ctx ends, handing each notice to
// r; after every (re)connection it asks r to resync, since notices sent
// while no connection listened are lost.
func (b *Broker) Listen(ctx context.Context, r server.Receiver) error {
	delay := time.Duration(0)
	for {
		start := time.Now()
		err := b.listen(ctx, r)
		if time.Since(start) > time.Minute {
			delay = 0 // it was up for a while: not a failing loop
		}
		if ctx.Err() != nil {
			return nil
		}
		b.setReady(fmt.Errorf("events: LISTEN connection lost: %w", err))
		b.log.Warn("events: LISTEN connection lost; reconnecting", "error", err)
		delay = min(max(2*delay, b.Backoff, 100*time.Millisecond), maxBackoff)
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-t.C:
		}
	}
}

// listen runs one LISTEN connection until it fails or ctx ends.
func (b *Broker) listen(ctx context.Context, r server.Receiver) error {
	conn, err := pgx.ConnectConfig(ctx, b.cfg)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "LISTEN "+eventsChannel); err != nil {
		return err
	}
	if b.OnListen != nil {
		b.OnListen(conn.PgConn().PID())
	}
	b.setReady(nil)
	r.Resync()
	for {
		wctx, cancel := context.WithTimeout(ctx, listenProbe)
		n, err := conn.WaitForNotification(wctx)
		cancel()
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case errors.Is(err, context.DeadlineExceeded):
			pctx, cancel := context.WithTimeout(ctx, pingTimeout)
			err = conn.Ping(pctx)
			cancel()
			if err != nil {
				return err
			}
			continue
		case err != nil:
			return err
		}
		var nt notice
		if json.Unmarshal([]byte(n.Payload), &nt) != nil || nt.Repo == "" {
			b.log.Warn("events: ignoring a malformed notice", "payload", n.Payload)
			continue
		}
		b.deliver(r, nt)
	}
}

// deliver hands a notice to r: a version's to Notify, another process's
// proposal's to NotifyProposal when r takes them.
func (b *Broker) deliver(r server.Receiver, nt notice) {
	if nt.Proposal == 0 {
		r.Notify(nt.Repo, nt.Version)
		return
	}
	if pr, ok := r.(server.ProposalReceiver); ok && nt.Origin != b.origin {
		pr.NotifyProposal(nt.Repo, nt.Proposal)
	}
}
