package agent

import "time"

// ConsolidationStatus is a consolidation in progress in the folder's
// memory folder, as status shows it.
type ConsolidationStatus struct {
	// PID is the lock holder's process id, Since when it took the lock.
	PID   int       `json:"pid"`
	Since time.Time `json:"since"`
	// PushesHeld says the running agent keeps this folder's changes from
	// the server until it ends.
	PushesHeld bool `json:"pushesHeld"`
}

// readConsolidation returns the consolidation in progress in memDir, nil
// when none: the lock is live (§11), the engine of the journal's folder did
// not see it end, and it has not written and then gone quiet for the
// settle time. pushesHeld is the running engine's say, from its record.
func readConsolidation(memDir, journal string, agentRunning bool, now time.Time) *ConsolidationStatus {
	c := newConsolidation(ConsolidationWatch{MemDir: memDir}, journal)
	if c.lock == nil {
		return nil
	}
	h, err := c.lock.Holder()
	if err != nil || !h.Live || c.done.is(h) {
		return nil
	}
	st := &ConsolidationStatus{PID: h.PID, Since: h.Since}
	if c.current.is(h) {
		st.PushesHeld = agentRunning
		return st
	}
	if last := newestChange(memDir, c.lock.Path()); !last.Before(h.Since) && now.Sub(last) >= c.settle {
		return nil // it wrote, then stayed quiet: over
	}
	return st
}
