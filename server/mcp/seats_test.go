package mcp

import (
	"context"
	"errors"
	"runtime"
	"testing"
)

// TestSeats: a caller's calls past its seats wait, past its queue are
// refused at once, and a waiting call takes the seat a running one gives
// back or gives up with its context; another caller's seats are its own,
// and an idle caller's row is dropped.
func TestSeats(t *testing.T) {
	s := newSeats(1, 1)
	release, err := s.take(context.Background(), "ana")
	if err != nil {
		t.Fatal(err)
	}
	waited := make(chan error)
	var second func()
	go func() {
		var err error
		second, err = s.take(context.Background(), "ana")
		waited <- err
	}()
	for !s.waiting("ana", 2) { // until the second call joined the queue
		runtime.Gosched()
	}
	if _, err := s.take(context.Background(), "ana"); !errors.Is(err, errQueueFull) {
		t.Errorf("a third call with the seat taken and the queue full: %v, want errQueueFull", err)
	}
	other, err := s.take(context.Background(), "bob")
	if err != nil {
		t.Errorf("another caller: %v", err)
	}
	other()
	release()
	if err := <-waited; err != nil {
		t.Fatalf("the waiting call: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.take(ctx, "ana"); !errors.Is(err, context.Canceled) {
		t.Errorf("a call whose context ended while it waited: %v", err)
	}
	second()
	if n := len(s.rows); n != 0 {
		t.Errorf("%d rows left with no call running", n)
	}
	if _, err := s.take(ctx, "ana"); err != nil {
		t.Errorf("a free seat with an ended context: %v, want the seat", err)
	}
}

// waiting reports whether caller has n calls running or waiting.
func (s *seats) waiting(caller string, n int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.rows[caller]
	return r != nil && r.users == n
}
