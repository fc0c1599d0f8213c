package mcp

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/teammem/teammem/mcptools"
	"github.com/teammem/teammem/server/httpkit"
)

// The bounds of a tool call, by default.
const (
	DefaultCallTimeout    = 30 * time.Second
	DefaultMaxReplyBytes  = 4 << 20
	DefaultCallsPerCaller = 4
)

// queuePerSeat is how many calls of a caller may wait for each of its
// seats; more are refused at once.
const queuePerSeat = 8

// withDefaults fills the bounds left zero.
func (o Options) withDefaults() Options {
	if o.CallTimeout <= 0 {
		o.CallTimeout = DefaultCallTimeout
	}
	if o.MaxReplyBytes <= 0 {
		o.MaxReplyBytes = DefaultMaxReplyBytes
	}
	if o.CallsPerCaller <= 0 {
		o.CallsPerCaller = DefaultCallsPerCaller
	}
	return o
}

// budget bounds each tool call: its caller's rate limit takes one token
// (past it the call is refused, saying when to retry), at most
// CallsPerCaller calls of a caller run at once (a few more wait for a seat
// within their time, the rest are refused), the call runs under
// CallTimeout and its reply is at most MaxReplyBytes.
func (o Options) budget() mcptools.Budget {
	seats := newSeats(o.CallsPerCaller, o.CallsPerCaller*queuePerSeat)
	admit := func(ctx context.Context, tool string) (func(), error) {
		p, _ := callerOf(ctx)
		if err := o.Limiter.Allow(p.Subject); err != nil {
			var rl httpkit.RateLimitedError
			if !errors.As(err, &rl) {
				rl.RetryAfter = 1
			}
			if o.RateLimited != nil {
				o.RateLimited()
			}
			return nil, mcptools.Mark(errors.New(rateLimitMessage(rl.RetryAfter)), mcptools.ErrLimit)
		}
		release, err := seats.take(ctx, p.Subject)
		switch {
		case errors.Is(err, errQueueFull):
			return nil, mcptools.Mark(fmt.Errorf("%s is refused: %d calls of this token are running and %d more waiting, as many as the server takes; retry when they end",
				tool, o.CallsPerCaller, o.CallsPerCaller*queuePerSeat), mcptools.ErrLimit)
		case err != nil:
			return nil, mcptools.Mark(fmt.Errorf("%s waited %v for one of the %d calls of this token that may run at once, and was stopped; let the running calls end before sending more",
				tool, o.CallTimeout, o.CallsPerCaller), mcptools.ErrLimit)
		}
		return release, nil
	}
	return mcptools.Budget{Admit: admit, Timeout: o.CallTimeout, MaxReplyBytes: o.MaxReplyBytes}
}
