package sqlite

import "context"

// gate admits at most cap(g) callers at a time, in the order they came.
// A pool's connections are the real bound, but database/sql hands a
// connection given back to a random waiter: under load some requests
// waited behind many that came after them. Blocked channel senders are
// woken first come, first served, so a gate of the pool's size in front of
// it keeps the waits in arrival order and the tail short.
type gate chan struct{}

func newGate(n int) gate { return make(gate, n) }

// enter waits for a place; it fails only when ctx ends first.
func (g gate) enter(ctx context.Context) error {
	select {
	case g <- struct{}{}:
		return nil
	default:
	}
	select {
	case g <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// leave gives the place back.
func (g gate) leave() { <-g }
