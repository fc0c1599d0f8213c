package postgres_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/events"
	"github.com/teammem/teammem/server/postgres"
	"github.com/teammem/teammem/testkit/pgtest"
)

// replica is one server process's share of the events machinery.
type replica struct {
	svc    *server.Service
	hub    *events.Hub
	broker *postgres.Broker
	mu     sync.Mutex
	pids   []uint32 // of its LISTEN connections, newest last
}

func (r *replica) listenPID() uint32 {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.pids) == 0 {
		return 0
	}
	return r.pids[len(r.pids)-1]
}

// startReplica opens its own pool on url, a broker and a hub, and waits
// until it listens.
func startReplica(t *testing.T, url string, migrate bool) *replica {
	t.Helper()
	db := open(t, url, postgres.Options{Migrate: migrate})
	r := &replica{broker: db.NewBroker(nil)}
	r.broker.Backoff = 500 * time.Millisecond // long enough to see it not ready
	r.broker.OnListen = func(pid uint32) { r.mu.Lock(); r.pids = append(r.pids, pid); r.mu.Unlock() }
	hub := events.NewHub(db, r.broker, events.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); hub.Run(ctx) }()
	t.Cleanup(func() { hub.Close(); cancel(); <-done })
	r.svc, r.hub = server.NewService(db, server.Config{Events: hub}), hub
	waitUntil(t, "the replica to listen", func() bool { return r.broker.Ready() == nil })
	return r
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

var admin = server.Principal{Subject: "ann", Grants: []server.Grant{{Glob: []string{"**"}, Perm: server.PermAdmin}}}

// expectVersions reads s until version last and checks that it saw each
// of first..last once, in order.
func expectVersions(t *testing.T, name string, s server.Subscription, first, last int64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for want := first; want <= last; {
		u, err := s.Next(ctx, nil)
		if err != nil {
			t.Fatalf("%s: waiting for version %d: %v", name, want, err)
		}
		if u.IsZero() {
			continue
		}
		if u.Event == nil || u.Event.Version != want {
			t.Fatalf("%s: got %+v; want the event of version %d", name, u, want)
		}
		want++
	}
}

// TestBrokerReplicas runs three replicas on one database: subscribers of
// replicas 2 and 3 receive every write made through replica 1, in order and
// once each, although their LISTEN connections are killed with
// pg_terminate_backend while the writes go on; a killed replica is not
// ready until it listens again, and counts the reconnection.
func TestBrokerReplicas(t *testing.T) {
	url := pgtest.URL(t)
	r1 := startReplica(t, url, true)
	r2 := startReplica(t, url, false)
	r3 := startReplica(t, url, false)
	ctx := context.Background()
	subscribe := func(r *replica) server.Subscription {
		s, err := r.svc.Subscribe(ctx, admin, "acme/api", 0, true)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Close)
		return s
	}
	s1, s2, s3 := subscribe(r1), subscribe(r2), subscribe(r3)
	const writes = 100
	errc := make(chan error, 1)
	go func() {
		for i := 1; i <= writes; i++ {
			_, err := r1.svc.Put(ctx, admin, "acme/api", server.PutInput{Entries: map[string]string{"a.md": fmt.Sprint(i)}})
			if err != nil {
				errc <- err
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
		errc <- nil
	}()
	// Kill both followers' LISTEN connections twice while writes go on.
	killer, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer killer.Close(ctx)
	for round := 0; round < 2; round++ {
		time.Sleep(60 * time.Millisecond)
		killed := map[*replica]uint32{}
		for _, r := range []*replica{r2, r3} {
			pid := r.listenPID()
			killed[r] = pid
			var ok bool
			if err := killer.QueryRow(ctx, `SELECT pg_terminate_backend($1)`, int32(pid)).Scan(&ok); err != nil || !ok {
				t.Fatalf("pg_terminate_backend(%d) = %v, %v", pid, ok, err)
			}
		}
		waitUntil(t, "replica 2 to notice the lost connection", func() bool { return r2.broker.Ready() != nil })
		// Both must listen again before the next round kills their new
		// connections (on a loaded machine replica 3 may lag behind 2).
		for _, r := range []*replica{r2, r3} {
			waitUntil(t, "the replica to listen again", func() bool { return r.listenPID() != killed[r] && r.broker.Ready() == nil })
		}
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	expectVersions(t, "replica 1", s1, 1, writes)
	expectVersions(t, "replica 2", s2, 1, writes)
	expectVersions(t, "replica 3", s3, 1, writes)
	// Nothing more, nothing twice.
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	for _, s := range []server.Subscription{s1, s2, s3} {
		if u, err := s.Next(short, nil); err == nil {
			t.Errorf("an extra update: %+v", u)
		}
	}
	for i, r := range []*replica{r2, r3} {
		if n := r.hub.Stats().ListenReconnects; n < 2 {
			t.Errorf("replica %d counted %d LISTEN reconnects; want at least 2", i+2, n)
		}
	}
}
