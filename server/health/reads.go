package health

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/teammem/teammem/server"
)

// ReadTracker is the Service's server.ReadNoter: it keeps the reads it is
// told of in memory, a stamp per key, and writes them to the store every
// Every (a minute by default), so a read costs no write of its own and a
// key read a thousand times a minute is written once. At most MaxPending
// keys wait; reads past it are dropped until the next flush (a topic read
// that often is not unused). Safe for concurrent use.
type ReadTracker struct {
	Store server.UpkeepStore
	Every time.Duration
	Log   *slog.Logger
	Now   func() time.Time

	mu      sync.Mutex
	pending map[string]map[string]time.Time // repo → key → last read
	n       int
}

// MaxPending bounds the reads a ReadTracker holds between flushes.
const MaxPending = 100_000

var _ server.ReadNoter = (*ReadTracker)(nil)

// NoteRead notes keys of repo as read now (server.ReadNoter); it never
// blocks on the store.
func (t *ReadTracker) NoteRead(repo string, keys []string) {
	now := time.Now
	if t.Now != nil {
		now = t.Now
	}
	at := now().UTC()
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.pending == nil {
		t.pending = map[string]map[string]time.Time{}
	}
	byKey := t.pending[repo]
	if byKey == nil {
		byKey = map[string]time.Time{}
		t.pending[repo] = byKey
	}
	for _, k := range keys {
		if _, ok := byKey[k]; !ok {
			if t.n >= MaxPending {
				return
			}
			t.n++
		}
		byKey[k] = at
	}
}

// Flush writes the reads noted so far, one write per repository, each
// key stamped with the repository's latest read (the stamps are as
// coarse as the flushes); reads it fails to write are logged and dropped.
func (t *ReadTracker) Flush(ctx context.Context) {
	t.mu.Lock()
	pending := t.pending
	t.pending, t.n = nil, 0
	t.mu.Unlock()
	for repo, byKey := range pending {
		var keys []string
		var at time.Time
		for k, t := range byKey {
			keys = append(keys, k)
			at = latest(at, t)
		}
		if err := t.Store.RecordReads(ctx, repo, keys, at); err != nil && t.Log != nil {
			t.Log.Warn("record reads", "repo", repo, "keys", len(keys), "err", err)
		}
	}
}

// Run flushes every Every until ctx ends, then once more.
func (t *ReadTracker) Run(ctx context.Context) {
	every := t.Every
	if every <= 0 {
		every = time.Minute
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			t.Flush(context.WithoutCancel(ctx))
			return
		case <-tick.C:
			t.Flush(ctx)
		}
	}
}
