package postgres

import (
	"context"
	"time"
)

// DefaultCallTimeout bounds a store call whose context has no deadline (the
// janitor's purge, a probe): a frozen database server never holds a caller
// forever. Requests bring their own, shorter deadline.
const DefaultCallTimeout = 30 * time.Second

// cleanupTimeout bounds a ROLLBACK or a connection close after a failure.
const cleanupTimeout = 2 * time.Second

// bounded returns ctx with DefaultCallTimeout applied when it has no
// deadline. Pool acquisition, every statement and the cleanup after it are
// then bounded.
func bounded(ctx context.Context) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, DefaultCallTimeout)
}

// cleanup runs fn (a ROLLBACK, a close) under its own deadline: at most
// cleanupTimeout, and never past ctx's deadline while the caller waits, so
// that a caller is answered in time even when the database server stopped
// answering. Once ctx is done the caller has given up: fn then runs in the
// background and cleanup returns nil (a connection that cannot be rolled
// back in time is closed by pgx, which ends the transaction on the server).
func cleanup(ctx context.Context, fn func(context.Context) error) error {
	run := func(deadline time.Time) error {
		c, cancel := context.WithDeadline(context.WithoutCancel(ctx), deadline)
		defer cancel()
		return fn(c)
	}
	deadline := time.Now().Add(cleanupTimeout)
	if ctx.Err() != nil {
		go run(deadline) //nolint:errcheck // nobody waits for it any more
		return nil
	}
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	return run(deadline)
}

// rollback ends tx under cleanup's deadline.
func rollback(ctx context.Context, tx interface{ Rollback(context.Context) error }) {
	_ = cleanup(ctx, tx.Rollback)
}
