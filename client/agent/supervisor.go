package agent

import (
	"context"
	"maps"
	"slices"
	"sync"
	"time"
)

// Runner runs one registered team folder until ctx is cancelled (then it
// flushes and returns nil) or it fails.
type Runner func(ctx context.Context) error

// Supervise keeps one Runner going per key of what load returns: it calls
// load at start and every `every`, starts the runners of new keys, cancels
// and waits for those of keys that went away, and restarts a runner that
// failed at the first load at least retry after its failure. onExit is
// told of every runner's end (err nil for a requested stop). Supervise
// returns when ctx is cancelled, after every runner has returned. Load
// errors are reported to onExit with key "" and keep the running set.
func Supervise(ctx context.Context, load func() (map[string]Runner, error), every, retry time.Duration,
	onExit func(key string, err error)) {
	type running struct {
		cancel context.CancelFunc
		done   chan struct{}
	}
	var mu sync.Mutex
	failedAt := map[string]time.Time{}
	active := map[string]*running{}
	stop := func(key string) {
		r := active[key]
		r.cancel()
		<-r.done
		delete(active, key)
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		wanted, err := load()
		if err != nil {
			onExit("", err)
			wanted = nil
		}
		mu.Lock()
		for key, r := range active {
			select {
			case <-r.done: // failed on its own
				delete(active, key)
			default:
			}
		}
		mu.Unlock()
		if err == nil {
			for _, key := range slices.Sorted(maps.Keys(active)) {
				if _, ok := wanted[key]; !ok {
					stop(key)
				}
			}
		}
		for _, key := range slices.Sorted(maps.Keys(wanted)) {
			mu.Lock()
			_, on := active[key]
			recent := time.Since(failedAt[key]) < retry
			mu.Unlock()
			if on || recent {
				continue
			}
			rctx, cancel := context.WithCancel(ctx)
			r := &running{cancel: cancel, done: make(chan struct{})}
			active[key] = r
			go func(key string, run Runner) {
				err := run(rctx)
				if err != nil && rctx.Err() == nil {
					mu.Lock()
					failedAt[key] = time.Now()
					mu.Unlock()
				} else {
					err = nil
				}
				onExit(key, err)
				close(r.done)
			}(key, wanted[key])
		}
		select {
		case <-ctx.Done():
			for key := range active {
				stop(key)
			}
			return
		case <-tick.C:
		}
	}
}
