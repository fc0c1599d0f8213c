package audit

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/teammem/teammem/server"
)

// Coalescer is a replica's server.ServedRecorder: it keeps one record per
// subject, repository, version, surface and server.ServedWindow in
// memory. Every flush saves the records made since the last one, and the
// final state of those whose window ended; a record's count and last
// serving in between stay in memory (saving every record each flush would
// rewrite every agent's record every minute). What a crash loses: the
// records first made since the last flush, and the count and last serving
// of the open windows' records (their first serving, version and surface
// are saved). A clean shutdown saves everything (Run).
type Coalescer struct {
	log     server.ServedLog
	replica string

	mu   sync.Mutex
	open map[servedKey]*openRecord
}

type servedKey struct {
	subject, repo string
	version       int64
	surface       server.ServedSurface
	window        time.Time
}

type openRecord struct {
	rec   server.ServedRecord
	keys  map[string]struct{}
	dirty bool // changed since saved
	saved bool // saved once
}

// NewCoalescer returns a Coalescer saving to log as replica (a name of
// the process, unique among the replicas sharing the database).
func NewCoalescer(log server.ServedLog, replica string) *Coalescer {
	return &Coalescer{log: log, replica: replica, open: map[servedKey]*openRecord{}}
}

// Served records s (server.ServedRecorder); it never blocks on the store.
func (c *Coalescer) Served(s server.Served) {
	at := s.At.UTC().Truncate(time.Microsecond)
	k := servedKey{s.Subject, s.Repo, s.Version, s.Surface, at.Truncate(server.ServedWindow)}
	c.mu.Lock()
	defer c.mu.Unlock()
	r := c.open[k]
	if r == nil {
		r = &openRecord{rec: server.ServedRecord{Subject: s.Subject, Repo: s.Repo, Version: s.Version, Surface: s.Surface,
			Window: k.window, Replica: c.replica, First: at}}
		c.open[k] = r
	}
	if at.After(r.rec.Last) {
		r.rec.Last = at
	}
	r.rec.Count++
	for _, key := range s.Keys {
		if _, ok := r.keys[key]; ok || len(r.keys) >= server.MaxServedKeys {
			continue
		}
		if r.keys == nil {
			r.keys = map[string]struct{}{}
		}
		r.keys[key] = struct{}{}
	}
	r.dirty = true
}

// Flush saves the records made since the last flush and those whose
// window ended before now, and forgets the latter; with all, every record
// that changed since saved. A record that fails to save is saved again at
// the next flush.
func (c *Coalescer) Flush(ctx context.Context, now time.Time, all bool) error {
	c.mu.Lock()
	var recs []server.ServedRecord
	for k, r := range c.open {
		ended := k.window.Add(server.ServedWindow).Before(now)
		if r.dirty && (all || ended || !r.saved) {
			recs = append(recs, r.snapshot())
			r.dirty, r.saved = false, true
		}
		if ended {
			delete(c.open, k)
		}
	}
	c.mu.Unlock()
	if len(recs) == 0 {
		return nil
	}
	err := c.log.SaveServed(ctx, recs)
	if err != nil {
		c.requeue(recs)
	}
	return err
}

// snapshot is the record as it stands, its keys sorted.
func (r *openRecord) snapshot() server.ServedRecord {
	rec := r.rec
	rec.Keys = make([]string, 0, len(r.keys))
	for key := range r.keys {
		rec.Keys = append(rec.Keys, key)
	}
	slices.Sort(rec.Keys)
	return rec
}

// requeue marks recs to be saved again, unless a newer state is open.
func (c *Coalescer) requeue(recs []server.ServedRecord) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, rec := range recs {
		k := servedKey{rec.Subject, rec.Repo, rec.Version, rec.Surface, rec.Window}
		r := c.open[k]
		if r == nil {
			r = &openRecord{rec: rec, keys: map[string]struct{}{}}
			for _, key := range rec.Keys {
				r.keys[key] = struct{}{}
			}
			c.open[k] = r
		}
		r.dirty, r.saved = true, false
	}
}

// Open returns how many records are held in memory.
func (c *Coalescer) Open() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.open)
}

// Run flushes every interval until ctx is done, then once more within
// final (the shutdown's flush).
func (c *Coalescer) Run(ctx context.Context, interval, final time.Duration, onError func(error)) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), final)
			defer cancel()
			if err := c.Flush(fctx, time.Now(), true); err != nil {
				onError(err)
			}
			return
		case <-t.C:
			if err := c.Flush(ctx, time.Now(), false); err != nil && ctx.Err() == nil {
				onError(err)
			}
		}
	}
}
