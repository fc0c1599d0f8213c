package sqlite

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestGate: a gate admits its capacity, makes the next caller wait until
// a place is given back, and lets a waiting caller go when its context
// ends, with the context's error.
func TestGate(t *testing.T) {
	g := newGate(2)
	ctx := context.Background()
	for range 2 {
		if err := g.enter(ctx); err != nil {
			t.Fatal(err)
		}
	}
	admitted := make(chan error, 1)
	go func() { admitted <- g.enter(ctx) }()
	select {
	case err := <-admitted:
		t.Fatalf("a third caller was admitted past a full gate of 2 (%v)", err)
	case <-time.After(50 * time.Millisecond):
	}
	g.leave()
	if err := <-admitted; err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
	defer cancel()
	if err := g.enter(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("enter on a full gate as the context ends = %v, want DeadlineExceeded", err)
	}
}
