package mcp

import (
	"context"
	"errors"
	"sync"
)

// seats bound the tool calls of one caller running at once, so that one
// caller's calls cannot hold every connection of the store's pool (and so
// starve every other caller's requests, and the token checks before them):
// a call past the bound waits for a seat until its context ends, and one
// finding the caller's queue full too is refused at once (a waiting call
// holds its request). Rows of callers with no call running or waiting are
// dropped. Safe for concurrent use.
type seats struct {
	per, queue int
	mu         sync.Mutex
	rows       map[string]*row
}

// errQueueFull refuses a call whose caller has every seat taken and the
// queue full.
var errQueueFull = errors.New("every seat taken and the queue full")

// row is one caller's seats: a slot of ch per running call, and the calls
// running or waiting.
type row struct {
	ch    chan struct{}
	users int
}

// newSeats gives each caller per seats and a queue of queue calls.
func newSeats(per, queue int) *seats {
	return &seats{per: per, queue: queue, rows: map[string]*row{}}
}

// take waits for a seat of caller; release gives it back. The error is
// errQueueFull, or the context's when it ended first.
func (s *seats) take(ctx context.Context, caller string) (release func(), err error) {
	r := s.join(caller)
	if r == nil {
		return nil, errQueueFull
	}
	release = func() {
		<-r.ch
		s.leave(caller, r)
	}
	select {
	case r.ch <- struct{}{}: // a free seat, whatever the context
		return release, nil
	default:
	}
	select {
	case r.ch <- struct{}{}:
		return release, nil
	case <-ctx.Done():
		s.leave(caller, r)
		return nil, ctx.Err()
	}
}

func (s *seats) join(caller string) *row {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.rows[caller]
	if r == nil {
		r = &row{ch: make(chan struct{}, s.per)}
		s.rows[caller] = r
	}
	if r.users >= s.per+s.queue {
		return nil
	}
	r.users++
	return r
}

func (s *seats) leave(caller string, r *row) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r.users--; r.users == 0 {
		delete(s.rows, caller)
	}
}
