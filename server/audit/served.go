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
// memory and saves the records that grew every flush. A record stays in
// memory until its window has ended and it was saved. What a crash loses:
// the servings since the last flush (at most one flush interval's); a
// clean shutdown flushes (Run).
type Coalescer struct {
	log     server.ServedLog
	replica string

	mu    sync.Mutex
	open  map[servedKey]*openRecord
	dirty int // records changed since the last flush
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
	dirty bool
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
	if !r.dirty {
		r.dirty = true
		c.dirty++
	}
}

// Flush saves every record that changed since the last flush and forgets
// those whose window ended before now. A record that fails to save stays
// to be saved at the next flush.
func (c *Coalescer) Flush(ctx context.Context, now time.Time) error {
	c.mu.Lock()
	recs := make([]server.ServedRecord, 0, c.dirty)
	for k, r := range c.open {
		if r.dirty {
			rec := r.rec
			rec.Keys = slices.Sorted(func(yield func(string) bool) {
				for key := range r.keys {
					if !yield(key) {
						return
					}
				}
			})
			recs = append(recs, rec)
			r.dirty = false
		}
		if k.window.Add(server.ServedWindow).Before(now) {
			delete(c.open, k)
		}
	}
	c.dirty = 0
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
		if !r.dirty {
			r.dirty = true
			c.dirty++
		}
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
			if err := c.Flush(fctx, time.Now()); err != nil {
				onError(err)
			}
			return
		case <-t.C:
			if err := c.Flush(ctx, time.Now()); err != nil && ctx.Err() == nil {
				onError(err)
			}
		}
	}
}
