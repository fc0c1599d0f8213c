package events_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/events"
	"github.com/teammem/teammem/server/sqlite"
)

const hubRepo = "acme/api"

// writer is a principal allowed to write everything.
var writer = server.Principal{Subject: "ann", Grants: []server.Grant{{Glob: []string{"**"}, Perm: server.PermAdmin}}}

// openStore opens a real embedded store in a temporary folder.
func openStore(t *testing.T) server.Store {
	t.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "teammem.db"), sqlite.Options{Migrate: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// newService returns a Service and its hub, which uses broker and opts.
func newService(t *testing.T, store server.Store, broker server.Broker, opts events.Options) (*server.Service, *events.Hub) {
	t.Helper()
	hub := events.NewHub(store, broker, opts)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); hub.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done; hub.Close() })
	return server.NewService(store, server.Config{Events: hub}), hub
}

// putN writes n versions of key, one per PUT.
func putN(t *testing.T, svc *server.Service, key string, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		if _, err := svc.Put(context.Background(), writer, hubRepo, server.PutInput{Entries: map[string]string{key: fmt.Sprint(key, i, rand.Int())}}); err != nil {
			t.Fatal(err)
		}
	}
}

// next waits for the subscription's next update.
func next(t *testing.T, s server.Subscription) (server.Update, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for {
		u, err := s.Next(ctx, nil)
		if err != nil || !u.IsZero() {
			return u, err
		}
	}
}

// collect reads events until version last and checks that they are
// exactly first..last in order.
func collect(t *testing.T, s server.Subscription, first, last int64) {
	t.Helper()
	want := first
	for want <= last {
		u, err := next(t, s)
		if err != nil {
			t.Fatalf("waiting for version %d: %v", want, err)
		}
		if u.Event == nil || u.Event.Version != want {
			t.Fatalf("got %+v; want the event of version %d", u, want)
		}
		want++
	}
}

func subscribe(t *testing.T, svc *server.Service, after int64, resume bool) server.Subscription {
	t.Helper()
	s, err := svc.Subscribe(context.Background(), writer, hubRepo, after, resume)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// TestHubReplayThenLive has subscribers join, each resuming after a
// different version, while several writers keep writing: each receives
// every version after its own exactly once and in order, whatever the
// moment it joined.
func TestHubReplayThenLive(t *testing.T) {
	svc, hub := newService(t, openStore(t), nil, events.Options{Buffer: 10_000})
	putN(t, svc, "seed.md", 5)
	const writers, perWriter = 4, 40
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < perWriter; i++ {
				key := fmt.Sprintf("w%d.md", w)
				if _, err := svc.Put(context.Background(), writer, hubRepo, server.PutInput{Entries: map[string]string{key: fmt.Sprint(i)}}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	type joined struct {
		s     server.Subscription
		first int64
	}
	var subs []joined
	for i := 0; i < 12; i++ {
		after := int64(rand.IntN(6)) // 0..5: all of them written before the subscription
		if i%3 == 0 {
			// Resume after whatever version exists now.
			st, err := svc.State(context.Background(), writer, hubRepo)
			if err != nil {
				t.Fatal(err)
			}
			after = st.Version
		}
		subs = append(subs, joined{subscribe(t, svc, after, true), after + 1})
		time.Sleep(time.Millisecond)
	}
	live := subscribe(t, svc, 0, false)
	wg.Wait()
	putN(t, svc, "last.md", 1) // at least one for the live-only subscriber
	st, err := svc.State(context.Background(), writer, hubRepo)
	if err != nil {
		t.Fatal(err)
	}
	if st.Version != 6+writers*perWriter {
		t.Fatalf("version %d; want %d", st.Version, 6+writers*perWriter)
	}
	for _, j := range subs {
		collect(t, j.s, j.first, st.Version)
	}
	// The live-only subscriber gets a contiguous tail ending at the last.
	u, err := next(t, live)
	if err != nil || u.Event == nil {
		t.Fatalf("live subscriber: %+v, %v", u, err)
	}
	collect(t, live, u.Event.Version+1, st.Version)
	if got := hub.Stats().Published; got != st.Version {
		t.Errorf("published %d; want %d", got, st.Version)
	}
}

// TestHubEventContent checks what one event says.
func TestHubEventContent(t *testing.T) {
	svc, _ := newService(t, openStore(t), nil, events.Options{})
	putN(t, svc, "a.md", 1)
	s := subscribe(t, svc, 1, true)
	p := server.Principal{Subject: "bob", Grants: writer.Grants}
	res, err := svc.Put(context.Background(), p, "Acme/API.git", server.PutInput{Entries: map[string]string{"b.md": "x"}, Deletes: []string{"a.md"}})
	if err != nil {
		t.Fatal(err)
	}
	u, err := next(t, s)
	if err != nil {
		t.Fatal(err)
	}
	ev := u.Event
	if ev.Repo != hubRepo || ev.Version != 2 || ev.Checksum != res.State.Checksum || ev.Author != "bob" ||
		fmt.Sprint(ev.Changed) != "[b.md]" || fmt.Sprint(ev.Deleted) != "[a.md]" || !ev.At.Equal(res.State.UpdatedAt) {
		t.Errorf("event %+v; want version 2 by bob, changed [b.md], deleted [a.md], checksum %s", ev, res.State.Checksum)
	}
	// A PUT that changes nothing publishes nothing.
	if _, err := svc.Put(context.Background(), p, hubRepo, server.PutInput{Entries: map[string]string{"b.md": "x"}}); err != nil {
		t.Fatal(err)
	}
	putN(t, svc, "c.md", 1)
	if u, err := next(t, s); err != nil || u.Event.Version != 3 || fmt.Sprint(u.Event.Changed) != "[c.md]" {
		t.Errorf("after a no-op PUT: %+v, %v; want version 3", u.Event, err)
	}
}

// TestHubReset checks the resets: resuming after a version the server
// does not have, before the purge floor, or too far behind.
func TestHubReset(t *testing.T) {
	store := openStore(t)
	svc, _ := newService(t, store, nil, events.Options{MaxReplay: 10})
	putN(t, svc, "a.md", 3)
	if _, err := svc.Put(context.Background(), writer, hubRepo, server.PutInput{Deletes: []string{"a.md"}}); err != nil {
		t.Fatal(err)
	}
	putN(t, svc, "b.md", 1) // version 5
	s := subscribe(t, svc, 9, true)
	if u, err := next(t, s); err != nil || u.Reset == nil || u.Reset.Version != 5 {
		t.Fatalf("ahead of the server: first update %+v, %v; want a reset to version 5", u, err)
	}
	putN(t, svc, "b.md", 1)
	collect(t, s, 6, 6)
	if _, err := store.PurgeTombstones(context.Background(), time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	s = subscribe(t, svc, 2, true) // the tombstone of version 4 is gone
	u, err := next(t, s)
	if err != nil || u.Reset == nil || u.Reset.Version != 6 {
		t.Fatalf("before the purge floor: %+v, %v; want a reset to version 6", u, err)
	}
	putN(t, svc, "c.md", 12)
	collect(t, s, 7, 18)
	s = subscribe(t, svc, 5, true) // 13 versions behind, more than MaxReplay
	if u, err := next(t, s); err != nil || u.Reset == nil || u.Reset.Version != 18 {
		t.Fatalf("too far behind: %+v, %v; want a reset to version 18", u, err)
	}
	s = subscribe(t, svc, 9, true) // 9 behind: replayed
	collect(t, s, 10, 18)
}

// TestHubNeverWritten subscribes to a repository that does not exist yet:
// its first write arrives as version 1, and a resume after a version it
// never had is a reset to the empty state.
func TestHubNeverWritten(t *testing.T) {
	svc, _ := newService(t, openStore(t), nil, events.Options{})
	s := subscribe(t, svc, 0, true)
	r := subscribe(t, svc, 7, true)
	putN(t, svc, "a.md", 2)
	collect(t, s, 1, 2)
	u, err := next(t, r)
	if err != nil || u.Reset == nil || u.Reset.Version != 0 || u.Reset.Checksum == "" {
		t.Fatalf("resume after 7 on a new repo: %+v, %v; want a reset to version 0 with the empty checksum", u, err)
	}
	collect(t, r, 1, 2)
}

// TestHubSlowConsumer fills one subscriber's queue: it is disconnected,
// counted, and the others keep receiving.
func TestHubSlowConsumer(t *testing.T) {
	svc, hub := newService(t, openStore(t), nil, events.Options{Buffer: 3})
	slow := subscribe(t, svc, 0, false)
	fast := subscribe(t, svc, 0, false)
	for i := 1; i <= 8; i++ {
		putN(t, svc, "a.md", 1)
		collect(t, fast, int64(i), int64(i))
	}
	select {
	case <-slow.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the slow subscriber was not disconnected")
	}
	var err error
	for err == nil {
		_, err = next(t, slow) // what was queued before the disconnection, then the reason
	}
	if !errors.Is(err, server.ErrSlowSubscriber) {
		t.Errorf("slow subscriber's error %v; want ErrSlowSubscriber", err)
	}
	if st := hub.Stats(); st.SlowDisconnects != 1 || st.OpenStreams != 2 {
		t.Errorf("stats %+v; want 1 slow disconnect and 2 streams still counted until closed", st)
	}
	slow.Close()
	if st := hub.Stats(); st.OpenStreams != 1 {
		t.Errorf("open streams %d after Close; want 1", st.OpenStreams)
	}
}

// TestHubStreamCap refuses a subject's stream beyond the cap, counting
// streams across repositories, and frees the slot on Close.
func TestHubStreamCap(t *testing.T) {
	svc, _ := newService(t, openStore(t), nil, events.Options{MaxPerSubject: 2})
	ctx := context.Background()
	a, err := svc.Subscribe(ctx, writer, "acme/one", 0, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Subscribe(ctx, writer, "acme/two", 0, false); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Subscribe(ctx, writer, "acme/three", 0, false); !errors.Is(err, server.ErrTooManyStreams) {
		t.Fatalf("third stream: %v; want ErrTooManyStreams", err)
	}
	other := server.Principal{Subject: "bob", Grants: writer.Grants}
	if _, err := svc.Subscribe(ctx, other, "acme/three", 0, false); err != nil {
		t.Errorf("another subject: %v", err)
	}
	a.Close()
	a.Close() // idempotent
	if _, err := svc.Subscribe(ctx, writer, "acme/three", 0, false); err != nil {
		t.Errorf("after Close: %v", err)
	}
}

// TestHubAuth needs read access, whether or not the repository exists.
func TestHubAuth(t *testing.T) {
	svc, _ := newService(t, openStore(t), nil, events.Options{})
	putN(t, svc, "a.md", 1)
	reader := server.Principal{Subject: "rita", Grants: []server.Grant{{Glob: []string{"acme", "web"}, Perm: server.PermRead}}}
	for _, repo := range []string{hubRepo, "acme/never"} {
		if _, err := svc.Subscribe(context.Background(), reader, repo, 0, false); !errors.Is(err, server.ErrForbidden) {
			t.Errorf("%s without a grant: %v; want ErrForbidden", repo, err)
		}
	}
	if _, err := svc.Subscribe(context.Background(), reader, "not a slug", 0, false); !errors.Is(err, server.ErrInvalid) {
		t.Errorf("invalid repo: %v; want ErrInvalid", err)
	}
	s, err := svc.Subscribe(context.Background(), reader, "acme/web", 0, false)
	if err != nil {
		t.Fatalf("read grant: %v", err)
	}
	s.Close()
}

// TestHubClose ends every subscription and refuses new ones.
func TestHubClose(t *testing.T) {
	store := openStore(t)
	hub := events.NewHub(store, nil, events.Options{})
	svc := server.NewService(store, server.Config{Events: hub})
	s, err := svc.Subscribe(context.Background(), writer, hubRepo, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	hub.Close()
	if _, err := next(t, s); !errors.Is(err, server.ErrShuttingDown) || !errors.Is(err, server.ErrUnavailable) {
		t.Errorf("after Close: %v; want ErrShuttingDown", err)
	}
	s.Close()
	if _, err := svc.Subscribe(context.Background(), writer, hubRepo, 0, false); !errors.Is(err, server.ErrShuttingDown) {
		t.Errorf("Subscribe after Close: %v; want ErrShuttingDown", err)
	}
}

// bus is a Broker between hubs of one test, standing for the processes
// that share a database; while cut, notices are lost.
type bus struct {
	mu    sync.Mutex
	hubs  []server.Receiver
	cut   bool
	ready chan struct{}
}

type busBroker struct{ b *bus }

func (p busBroker) Publish(_ context.Context, ev *server.Event) error {
	p.b.mu.Lock()
	defer p.b.mu.Unlock()
	if p.b.cut {
		return errors.New("bus cut")
	}
	for _, r := range p.b.hubs {
		r.Notify(ev.Repo, ev.Version)
	}
	return nil
}

func (p busBroker) Listen(ctx context.Context, r server.Receiver) error {
	p.b.mu.Lock()
	p.b.hubs = append(p.b.hubs, r)
	p.b.mu.Unlock()
	r.Resync() // connected
	p.b.ready <- struct{}{}
	<-ctx.Done()
	return nil
}

func (p busBroker) Ready() error { return nil }

// heal reconnects the bus and resyncs every hub, as a broker does after a
// reconnection.
func (b *bus) heal() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.cut = false
	for _, r := range b.hubs {
		r.Resync()
	}
}

// TestHubReplicas has three services on one store, standing for three
// servers on one database: subscribers of the second and third receive
// the writes made through the first from the Store, in order; while the
// notices are lost they receive nothing new, and after a resync every
// version arrives exactly once.
func TestHubReplicas(t *testing.T) {
	store := openStore(t)
	b := &bus{ready: make(chan struct{}, 3)}
	var svcs []*server.Service
	var hubs []*events.Hub
	for i := 0; i < 3; i++ {
		svc, hub := newService(t, store, busBroker{b}, events.Options{})
		svcs, hubs = append(svcs, svc), append(hubs, hub)
		<-b.ready
	}
	s2, s3 := subscribe(t, svcs[1], 0, true), subscribe(t, svcs[2], 0, false)
	putN(t, svcs[0], "a.md", 5)
	collect(t, s2, 1, 5)
	collect(t, s3, 1, 5)
	// A repository nobody wrote yet, so that no fan-out of it is under
	// way when the notices start being lost.
	quiet, err := svcs[1].Subscribe(context.Background(), writer, "acme/quiet", 0, false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(quiet.Close)
	b.mu.Lock()
	b.cut = true
	b.mu.Unlock()
	for i := 0; i < 3; i++ {
		if _, err := svcs[0].Put(context.Background(), writer, "acme/quiet", server.PutInput{Entries: map[string]string{"q.md": fmt.Sprint(i)}}); err != nil {
			t.Fatal(err)
		}
	}
	putN(t, svcs[0], "a.md", 5)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	if u, err := quiet.Next(ctx, nil); err == nil {
		t.Fatalf("while cut, replica 2 got %+v", u)
	}
	cancel()
	b.heal()
	collect(t, quiet, 1, 3)
	collect(t, s2, 6, 10)
	collect(t, s3, 6, 10)
	putN(t, svcs[0], "a.md", 1)
	collect(t, s2, 11, 11)
	if got := hubs[1].Stats().ListenReconnects; got != 1 {
		t.Errorf("replica 2 counted %d reconnects; want 1", got)
	}
}
