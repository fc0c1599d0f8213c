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
// reconciles again whenever the watched folder changes (debounced), when
// the event stream announces a version newer than the server view (bursts
// coalesce into one pull; the events of its own pushes announce nothing
// new), every Poll interval while the stream is down or absent (every
// SafetyPoll while it is connected), every Rescan interval, and after a
// failure once its jittered backoff (or the server's Retry-After) expires;
// until then, changes, events and poll ticks are only marked pending.
// While watching, a cycle examines only the paths the watcher reported (and
// those the engine wrote), and a poll answered 304 with nothing reported
// does no more; the first cycle, the Rescan interval, a watcher's rescan
// request (overflow, watch error), a retry and the shutdown walk the whole
// folder, reading only the files that changed. The journal is saved at the
// end of the first cycle and then whenever it changes. Every few seconds
// (inputsEvery) it looks at the files outside the folder that the blocks
// depend on (a checkout's HEAD, AGENTS.md, the configuration) and, when one
// changed, updates the blocks without syncing; at once when
// BlockConfig.OrgChanged says an org folder may have. Failures are
// reported through OnReport and retried; 401 and 403 stop pushing but not
// watching. While a consolidation rewrites the memory folder
// (Config.Consolidation), cycles apply the server's changes but keep the
// local ones, and Run looks at the lock every ConsolidationWatch.Every
// until it ends, then pulls and pushes them. When ctx is done Run rescans
// once, pushes what is pending (but what a running consolidation holds)
// within ShutdownTimeout, saves the journal and returns nil. Only a
// failure to start watching is returned as an error.
func (e *Engine) Run(ctx context.Context) error {
	batches, stopWatch, err := e.startWatch(ctx)
	if err != nil {
		return err
	}
	defer stopWatch()
	e.local.watched(batches != nil)
	poll, rescan := time.NewTicker(e.cfg.Poll), time.NewTicker(e.cfg.Rescan)
	defer poll.Stop()
	defer rescan.Stop()
	retry := time.NewTimer(time.Hour)
	retry.Stop()
	// late looks at the old files of those the engine just replaced, for
	// a writer that had opened one (replacedFiles); it runs while any is
	// watched.
	late := time.NewTimer(time.Hour)
	late.Stop()
	defer late.Stop()
	// held looks at the consolidation lock while it holds pushes, and
	// runs the cycle that pushes them once it ends.
	held := time.NewTimer(time.Hour)
	held.Stop()
	defer held.Stop()
	// inputs looks at the files outside the folder that the subscribers
	// depend on (blockInputs).
	var inputs <-chan time.Time
	if e.watchesInputs() {
		t := time.NewTicker(inputsEvery)
		defer t.Stop()
		inputs = t.C
	}
	trigger := make(chan struct{}, 1)
	trigger <- struct{}{} // pull on start
	b := newBackoff(e.cfg.Backoff, e.cfg.MaxBackoff)
	events, stopFollow := e.startFollow(ctx)
	defer stopFollow()
	lastPull := time.Time{}
	pull := true
	// backingOff holds every trigger but the retry timer (and the
	// shutdown) after a failure, until the backoff or the server's
	// Retry-After has passed: what they report is only marked pending.
	backingOff := false
	for {
		select {
		case <-ctx.Done():
			return e.shutdown(ctx)
		case <-trigger:
		case batch, ok := <-batches:
			if !ok {
				batches = nil
				e.local.watched(false) // nothing reports changes any more
				continue
			}
			e.noteBatch(batch)
		case <-events.Changes():
			version, reset := events.Take()
			news := reset || version > e.view.version
			if !news && !e.holdsAny(events.TakeDecided()) {
				continue // already known (our own push, or pulled meanwhile), and none of our proposals decided
			}
			pull = pull || news // a decision alone: the cycle asks after our proposals
		case <-poll.C:
			if len(e.kept.proposed) > 0 {
				break // a proposal's rejection writes nothing the stream would tell: ask after it
			}
			if events.Healthy() && time.Since(lastPull) < e.cfg.SafetyPoll-e.cfg.Poll/2 {
				continue // the stream tells us; this poll is only a safety net
			}
			pull = true
		case <-rescan.C:
			e.local.rescanAll()
			e.recheck = true // the subscribers look at their files again
		case <-retry.C:
			backingOff = false
			pull = true
			e.local.rescanAll()
		case <-inputs:
			e.republish(ctx)
			continue
		case <-e.cfg.Block.OrgChanged:
			e.republish(ctx)
			continue
		case <-late.C:
			carried, warnings := e.checkReplacedFiles(false)
			if len(warnings) > 0 {
				e.report(Report{Warnings: warnings})
			}
			if e.replaced.pending() {
				late.Reset(replacedCheckEvery)
			}
			if !carried {
				continue
			}
		case <-held.C:
			if !e.cons.observe(e.cfg.Now()) {
				held.Reset(e.cons.every)
				continue
			}
			pull = true // what teammates pushed meanwhile, then the held changes
		}
		if backingOff {
			continue // the retry timer runs the cycle
		}
		_, err := e.cycle(ctx, mode{pull: pull, local: true, push: true})
		if e.replaced.pending() {
			late.Reset(replacedCheckEvery)
		}
		if e.cons.holding() {
			held.Reset(e.cons.every)
		}
		switch {
		case ctx.Err() != nil:
		case err == nil || errors.Is(err, ErrPushBlocked) || errors.Is(err, ErrIncomplete):
			b.reset()
			if pull {
				lastPull = time.Now()
			}
			pull = false
			retry.Stop()
		default:
			backingOff = true
			retry.Reset(b.next(client.RetryAfter(err)))
		}
	}
}

// noteBatch marks what a watcher's batch says changed.
func (e *Engine) noteBatch(b watch.Batch) {
	if b.Rescan {
		e.local.rescanAll()
		return
	}
	e.local.changed(b.Paths...)
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

// startFollow starts the event stream's follower when configured; without
// one, the returned follower never signals and is never healthy.
func (e *Engine) startFollow(ctx context.Context) (*Follower, func()) {
	if e.cfg.Events == nil {
		return NewFollower(nil, e.cfg.Repo, FollowOptions{}), func() {}
	}
	f := NewFollower(e.cfg.Events, e.cfg.Repo, e.cfg.Follow)
	fctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	after := e.cfg.Journal.Version // read here: the journal is the engine goroutine's
	go func() {
		defer close(done)
		f.Run(fctx, after)
	}()
	return f, func() { cancel(); <-done }
}

// shutdown rescans and pushes what is pending, bounded by ShutdownTimeout;
// cycle saves the journal. A cycle that fails for a reason that passes (a
// teammate's push won the race more often than a cycle retries, the
// server restarting) is run again, pulling first, until it succeeds or the
// time is up: the randomized soak saw 8 index lines of 162 clean exits
// left unpushed by a single cycle under three agents' contention.
func (e *Engine) shutdown(ctx context.Context) error {
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), e.cfg.ShutdownTimeout)
	defer cancel()
	e.local.rescanAll()
	defer e.checkReplacedFiles(true) // closes the old files still watched
	m := modeRun
	for {
		_, err := e.cycle(sctx, m) // reported through OnReport; exiting anyway
		if err == nil || sctx.Err() != nil || !passing(err) {
			return nil
		}
		if sleepCtx(sctx, e.cfg.Backoff/10) != nil {
			return nil
		}
		m.pull = true
	}
}

// passing reports whether a cycle's failure may pass by trying again soon:
// a lost race (412, a file changed while syncing) or a retryable answer.
func passing(err error) bool {
	return errors.Is(err, client.ErrPreconditionFailed) || errors.Is(err, errReplan) ||
		errors.Is(err, errLocalChanged) || client.IsRetryable(err)
}
