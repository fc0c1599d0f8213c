package agent

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"
)

// Runner runs one registered team folder until ctx is cancelled (then it
// flushes and returns nil) or it fails.
type Runner func(ctx context.Context) error

// Supervise keeps one Runner going per key of what load returns: it calls
// load at start and every `every`, starts the runners of new keys, cancels
// and waits for those of keys that went away, and restarts a runner that
// returned on its own (failed) at the first load at least retry later.
// onExit is told of every runner's end (err nil for a requested stop). Supervise
// returns when ctx is cancelled, after every runner has returned. Load
// errors are reported to onExit with key "" and keep the running set.
func Supervise(ctx context.Context, load func() (map[string]Runner, error), every, retry time.Duration,
	onExit func(key string, err error)) {
	type running struct {
		cancel context.CancelFunc
		done   chan struct{}
		ended  bool // returned without being asked to stop (under mu)
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
		if ctx.Err() != nil { // runners end with ctx: none is restarted
			for key := range active {
				stop(key)
			}
			return
		}
		wanted, err := load()
		if err != nil {
			onExit("", err)
			wanted = nil
		}
		mu.Lock()
		for key, r := range active {
			if r.ended {
				delete(active, key)
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
				mu.Lock()
				if rctx.Err() == nil { // not asked to stop: start it again later
					r.ended, failedAt[key] = true, time.Now()
				} else {
					err = nil
				}
				mu.Unlock()
				onExit(key, err)
				close(r.done)
			}(key, wanted[key])
		}
		select {
		case <-ctx.Done():
		case <-tick.C:
		}
	}
}

// Cadence of the registered checkouts' supervision: how often the
// configuration is looked at, and how long a folder whose engine failed
// waits before the next attempt.
const (
	SuperviseEvery = 2 * time.Second
	SuperviseRetry = time.Minute
)

// RunnerKey names the engine of one team folder for Supervise by what it
// syncs: the folder, the repository, the server, (hashed) the token or
// token file, and the registered checkouts it keeps the block of, so that
// a change of any of them restarts the folder's engine (a checkout added
// gets its block from the new engine's first cycle, within seconds) and
// nothing else does.
func RunnerKey(dir, repo, server, token, tokenFile string, checkouts []string) string {
	sum := sha256.Sum256([]byte(token + "\x00" + tokenFile))
	cos := slices.Sorted(slices.Values(checkouts))
	return strings.Join(append([]string{dir, repo, server, hex.EncodeToString(sum[:8])}, cos...), "\x00")
}

// RunnerFolder returns the team folder a RunnerKey names.
func RunnerFolder(key string) string {
	dir, _, _ := strings.Cut(key, "\x00")
	return dir
}
