package loadgen

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// scenario is one workload. prepare runs once before the clock starts;
// iterate is called concurrently, each worker with its own tally, i being
// the iteration's number in the whole run; verify runs once after the last
// iteration and fills the scenario's own fields of the result.
type scenario interface {
	prepare(ctx context.Context) error
	iterate(ctx context.Context, w *worker, i int64)
	verify(ctx context.Context, workers []*worker, r *Result) error
}

func newScenario(cfg Config, c *client) scenario {
	switch cfg.Scenario {
	case Put:
		return &putScenario{cfg: cfg, c: c}
	case CAS:
		return &casScenario{cfg: cfg, c: c}
	case Search:
		return &searchScenario{cfg: cfg, c: c}
	case MCPRead:
		return &mcpScenario{searchScenario{cfg: cfg, c: c}, "read_memory"}
	case MCPSearch:
		return &mcpScenario{searchScenario{cfg: cfg, c: c}, "search_memories"}
	default:
		return &readScenario{cfg: cfg, c: c}
	}
}

// Run seeds the repository, drives the scenario with cfg.Concurrency
// workers until cfg.Requests iterations or cfg.Duration have passed, and
// verifies the end state. It returns an error when the configuration is
// invalid, seeding or verification cannot talk to the server, or ctx is
// cancelled (with what was measured so far); failed requests and lost
// updates are not errors but counts in the Result (see Result.OK).
func Run(ctx context.Context, cfg Config) (Result, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return Result{}, err
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = newHTTPClient(cfg.Concurrency, cfg.Timeout)
	}
	c := &client{base: cfg.Server, token: cfg.Token, repo: cfg.Repo, http: hc}
	sc := newScenario(cfg, c)
	if err := sc.prepare(ctx); err != nil {
		return Result{}, fmt.Errorf("prepare %s: %w", cfg.Scenario, err)
	}
	rss := startRSS(ctx, cfg.ServerPID, 100*time.Millisecond)
	cpu := startCPU(cfg.ServerPID)
	workers, elapsed := drive(ctx, cfg, sc)
	used, cpuErr := cpu.finish()
	last, peak, rssErr := rss.finish()
	r := tally(cfg, workers, elapsed)
	r.RSSBytes, r.RSSPeak, r.RSSFile = last.RSS, peak, last.File
	if err := ctx.Err(); err != nil {
		return r, fmt.Errorf("run %s: %w", cfg.Scenario, err)
	}
	if err := sc.verify(ctx, workers, &r); err != nil {
		return r, fmt.Errorf("verify %s: %w", cfg.Scenario, err)
	}
	r.setCPU(used)
	return r, errors.Join(rssErr, cpuErr)
}

// drive runs the workers and returns their tallies and the time they took.
func drive(ctx context.Context, cfg Config, sc scenario) ([]*worker, time.Duration) {
	var (
		next     atomic.Int64
		wg       sync.WaitGroup
		start    = time.Now()
		deadline = start.Add(cfg.Duration)
		workers  = make([]*worker, cfg.Concurrency)
	)
	more := func() (int64, bool) {
		if ctx.Err() != nil || (cfg.Duration > 0 && time.Now().After(deadline)) {
			return 0, false
		}
		i := next.Add(1) - 1
		return i, cfg.Requests == 0 || i < int64(cfg.Requests)
	}
	for id := range workers {
		w := &worker{id: id, errors: map[string]int{}}
		workers[id] = w
		wg.Go(func() {
			for i, ok := more(); ok; i, ok = more() {
				sc.iterate(ctx, w, i)
			}
		})
	}
	wg.Wait()
	return workers, time.Since(start)
}

// tally adds up the workers' counts and latencies.
func tally(cfg Config, workers []*worker, elapsed time.Duration) Result {
	r := Result{
		Scenario: cfg.Scenario, Repo: cfg.Repo, Entries: cfg.Entries,
		Concurrency: cfg.Concurrency, Runs: 1, Errors: map[string]int{},
		Seconds: elapsed.Seconds(),
	}
	var lat []time.Duration
	for _, w := range workers {
		r.Requests += w.requests
		lat = append(lat, w.latencies...)
		for k, v := range w.errors {
			r.Errors[k] += v
		}
	}
	slices.Sort(lat)
	r.P50ms, r.P99ms = ms(percentile(lat, 0.50)), ms(percentile(lat, 0.99))
	if elapsed > 0 {
		r.RPS = float64(r.Requests) / elapsed.Seconds()
	}
	return r
}
