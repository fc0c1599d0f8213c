package watch

import (
	"slices"
	"time"
)

// aggregator collects the paths of one burst of events and decides when the
// burst is due: once quiet for debounce, but no later than maxDelay after
// its first event. It takes the time as an argument, so its policy is tested
// without a clock.
type aggregator struct {
	debounce, maxDelay time.Duration
	paths              map[string]bool
	rescan             bool
	first, last        time.Time
}

// add records a changed path seen at now.
func (a *aggregator) add(p string, now time.Time) {
	if a.paths == nil {
		a.paths = map[string]bool{}
	}
	a.paths[p] = true
	a.touch(now)
}

// addRescan records that a full rescan is needed, as of now.
func (a *aggregator) addRescan(now time.Time) {
	a.rescan = true
	a.touch(now)
}

func (a *aggregator) touch(now time.Time) {
	if a.first.IsZero() {
		a.first = now
	}
	a.last = now
}

// pending reports whether anything was recorded since the last take.
func (a *aggregator) pending() bool { return len(a.paths) > 0 || a.rescan }

// deadline returns when the pending burst is due.
func (a *aggregator) deadline() time.Time {
	quiet := a.last.Add(a.debounce)
	if limit := a.first.Add(a.maxDelay); limit.Before(quiet) {
		return limit
	}
	return quiet
}

// due reports whether a pending burst is due at now.
func (a *aggregator) due(now time.Time) bool {
	return a.pending() && !now.Before(a.deadline())
}

// take returns the pending burst as a Batch (paths sorted) and starts anew.
func (a *aggregator) take() Batch {
	b := Batch{Rescan: a.rescan}
	for p := range a.paths {
		b.Paths = append(b.Paths, p)
	}
	slices.Sort(b.Paths)
	a.paths, a.rescan, a.first, a.last = nil, false, time.Time{}, time.Time{}
	return b
}

// mergeBatch adds b's paths and rescan flag into into.
func mergeBatch(into *Batch, b Batch) {
	into.Rescan = into.Rescan || b.Rescan
	for _, p := range b.Paths {
		if !slices.Contains(into.Paths, p) {
			into.Paths = append(into.Paths, p)
		}
	}
	slices.Sort(into.Paths)
}
