package agent

import (
	"context"
	"math/rand/v2"
	"time"
)

// backoff yields jittered, exponentially growing delays: each is uniform in
// [d/2, d) where d doubles from base up to max. A server's Retry-After wins
// when it is longer.
type backoff struct {
	base, max, cur time.Duration
}

func newBackoff(base, max time.Duration) *backoff {
	return &backoff{base: base, max: max}
}

// next returns the next delay, at least retryAfter.
func (b *backoff) next(retryAfter time.Duration) time.Duration {
	if b.cur == 0 {
		b.cur = b.base
	}
	d := b.cur
	b.cur = min(2*b.cur, b.max)
	if d > 1 {
		d = d/2 + rand.N(d/2)
	}
	return max(d, retryAfter)
}

// reset starts again from base after a success.
func (b *backoff) reset() { b.cur = 0 }

// sleepCtx waits for d or until ctx is done, returning ctx's error then.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
