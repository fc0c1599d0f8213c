package agent

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/teammem/teammem/client"
	"github.com/teammem/teammem/client/watch"
)

// Run is the daemon of spec/agent.md §3: it pulls and pushes once, then
// reconciles again whenever the watched folder changes (debounced), every
// Poll interval (a conditional pull), every Rescan interval, and after a
// failure once its jittered backoff (or the server's Retry-After) expires.
// Every cycle rescans the whole folder, so a watcher's rescan request needs
// nothing more. Failures are reported through OnReport and retried; 401 and
// 403 stop pushing but not watching. When ctx is done Run rescans once,
// pushes what is pending within ShutdownTimeout, saves the journal and
// returns nil. Only a failure to start watching is returned as an error.
func (e *Engine) Run(ctx context.Context) error {
	batches, stopWatch, err := e.startWatch(ctx)
	if err != nil {
		return err
	}
	defer stopWatch()
	poll, rescan := time.NewTicker(e.cfg.Poll), time.NewTicker(e.cfg.Rescan)
	defer poll.Stop()
	defer rescan.Stop()
	retry := time.NewTimer(time.Hour)
	retry.Stop()
	trigger := make(chan struct{}, 1)
	trigger <- struct{}{} // pull on start
	b := newBackoff(e.cfg.Backoff, e.cfg.MaxBackoff)
	pull := true
	for {
		select {
		case <-ctx.Done():
			return e.shutdown(ctx)
		case <-trigger:
		case _, ok := <-batches:
			if !ok {
				batches = nil
				continue
			}
		case <-poll.C:
			pull = true
		case <-rescan.C:
		case <-retry.C:
			pull = true
		}
		_, err := e.cycle(ctx, pull, true)
		switch {
		case ctx.Err() != nil:
		case err == nil || errors.Is(err, ErrPushBlocked):
			b.reset()
			pull = false
			retry.Stop()
		default:
			retry.Reset(b.next(client.RetryAfter(err)))
		}
	}
}

// startWatch starts the folder watcher when configured; the channel is nil
// otherwise.
func (e *Engine) startWatch(ctx context.Context) (<-chan watch.Batch, func(), error) {
	if !e.cfg.Watch {
		return nil, func() {}, nil
	}
	w, err := watch.New(e.cfg.Dir, watch.Options{Debounce: e.cfg.Debounce, MaxDelay: e.cfg.MaxDelay})
	if err != nil {
		return nil, nil, fmt.Errorf("run: %w", err)
	}
	wctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		w.Run(wctx) // returns nil on cancellation
	}()
	return w.Batches(), func() { cancel(); <-done }, nil
}

// shutdown rescans and pushes what is pending, bounded by ShutdownTimeout;
// cycle saves the journal.
func (e *Engine) shutdown(ctx context.Context) error {
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), e.cfg.ShutdownTimeout)
	defer cancel()
	e.cycle(sctx, false, true) // reported through OnReport; exiting anyway
	return nil
}
