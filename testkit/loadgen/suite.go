package loadgen

import (
	"context"
	"slices"
)

// Case is one entry of a benchmark set.
type Case struct {
	Scenario    string
	Entries     int
	Concurrency int // 0 = the suite's
}

// Benchmarks is the benchmark set of the performance issue: get-full@20,
// get-304@20, get-304@1000, hashes@1000, put@20, put@1000 and cas with 8
// writers.
var Benchmarks = []Case{
	{Scenario: GetFull, Entries: 20},
	{Scenario: Get304, Entries: 20},
	{Scenario: Get304, Entries: 1000},
	{Scenario: Hashes, Entries: 1000},
	{Scenario: Put, Entries: 20},
	{Scenario: Put, Entries: 1000},
	{Scenario: CAS, Entries: DefaultEntries, Concurrency: 8},
}

// Suite runs every case runs times with base's server, token, duration and
// concurrency, and returns per case the median of the runs (see Median).
// report, when not nil, is called with each case's median as it completes.
// It stops at the first error.
func Suite(ctx context.Context, base Config, cases []Case, runs int, report func(Result)) ([]Result, error) {
	var out []Result
	for _, c := range cases {
		cfg := base
		cfg.Scenario, cfg.Entries, cfg.Repo = c.Scenario, c.Entries, ""
		if c.Concurrency > 0 {
			cfg.Concurrency = c.Concurrency
		}
		var rs []Result
		for range max(runs, 1) {
			r, err := Run(ctx, cfg)
			if err != nil {
				return out, err
			}
			rs = append(rs, r)
		}
		m := Median(rs)
		if report != nil {
			report(m)
		}
		out = append(out, m)
	}
	return out, nil
}

// Median combines runs of one case: the median of each rate, latency,
// count and memory figure, and the sum of errors and lost updates, so that
// a failure in any run shows.
func Median(rs []Result) Result {
	if len(rs) == 0 {
		return Result{}
	}
	m := rs[0]
	m.Runs, m.Errors, m.LostUpdates = len(rs), map[string]int{}, 0
	for _, r := range rs {
		for k, v := range r.Errors {
			m.Errors[k] += v
		}
		m.LostUpdates += r.LostUpdates
	}
	m.RPS = median(rs, func(r Result) float64 { return r.RPS })
	m.P50ms = median(rs, func(r Result) float64 { return r.P50ms })
	m.P99ms = median(rs, func(r Result) float64 { return r.P99ms })
	m.Seconds = median(rs, func(r Result) float64 { return r.Seconds })
	m.Requests = int(median(rs, func(r Result) float64 { return float64(r.Requests) }))
	m.Acknowledged = int(median(rs, func(r Result) float64 { return float64(r.Acknowledged) }))
	m.Conflicts = int(median(rs, func(r Result) float64 { return float64(r.Conflicts) }))
	m.CPUms = median(rs, func(r Result) float64 { return r.CPUms })
	m.RSSBytes = int64(median(rs, func(r Result) float64 { return float64(r.RSSBytes) }))
	m.RSSPeak = int64(median(rs, func(r Result) float64 { return float64(r.RSSPeak) }))
	m.RSSFile = int64(median(rs, func(r Result) float64 { return float64(r.RSSFile) }))
	return m
}

// median returns the median of f over rs (the lower middle for an even count).
func median(rs []Result, f func(Result) float64) float64 {
	v := make([]float64, len(rs))
	for i, r := range rs {
		v[i] = f(r)
	}
	slices.Sort(v)
	return v[(len(v)-1)/2]
}
