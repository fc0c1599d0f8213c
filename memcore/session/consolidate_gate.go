package session

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/teammem/teammem/memcore"
)

// Defaults of the consolidation gate (§11).
const (
	DefaultConsolidateInterval = 24 * time.Hour
	DefaultSessionScanInterval = 10 * time.Minute
	DefaultMinSessions         = 5
)

// transcriptExt is the file extension of session transcripts.
const transcriptExt = ".jsonl"

// GateOutcome says which check of the consolidation gate decided.
type GateOutcome string

// The gate's outcomes, in the order the checks run.
const (
	GateDisabled    GateOutcome = "disabled"     // an enabled flag is off
	GateTooSoon     GateOutcome = "too-soon"     // under the interval since the last consolidation
	GateThrottled   GateOutcome = "throttled"    // a session scan ran less than ScanInterval ago
	GateFewSessions GateOutcome = "few-sessions" // fewer than MinSessions touched since
	GateLockHeld    GateOutcome = "lock-held"    // another live process holds the lock
	GateAcquired    GateOutcome = "acquired"     // the caller now holds the lock
)

// GateResult is the consolidation gate's answer.
type GateResult struct {
	// Outcome is the check that decided; GateAcquired means go ahead.
	Outcome GateOutcome
	// Prior is the lock's previous modification time, for Rollback, when
	// acquired.
	Prior time.Time
	// Sessions are the ids of the sessions touched since the last
	// consolidation (current one excluded), when the scan ran.
	Sessions []string
}

// ConsolidationGate decides, cheapest check first, whether to consolidate
// memory now: enabled flags; at least Interval since LastConsolidatedAt; at
// most one session scan per ScanInterval; at least MinSessions transcripts
// (other than the current session's) modified since then; the lock.
// Check is safe for concurrent use.
type ConsolidationGate struct {
	// Lock is the auto memory folder's consolidation lock.
	Lock *ConsolidationLock
	// TranscriptDir holds the project's session transcripts, one
	// <session id>.jsonl each (see ProjectDir).
	TranscriptDir string
	// CurrentSession is the running session's id, never counted.
	CurrentSession string
	// Enabled is false when auto memory or consolidation is switched off.
	Enabled bool
	// Interval, ScanInterval and MinSessions default to 24 h, 10 min and 5.
	Interval     time.Duration
	ScanInterval time.Duration
	MinSessions  int

	now      func() time.Time
	mu       sync.Mutex
	lastScan time.Time
}

// NewConsolidationGate returns an enabled gate with the default thresholds.
func NewConsolidationGate(env memcore.Env, autoMemDir, transcriptDir, currentSession string) *ConsolidationGate {
	return &ConsolidationGate{
		Lock:           NewConsolidationLock(env, autoMemDir),
		TranscriptDir:  transcriptDir,
		CurrentSession: currentSession,
		Enabled:        true,
		Interval:       DefaultConsolidateInterval,
		ScanInterval:   DefaultSessionScanInterval,
		MinSessions:    DefaultMinSessions,
		now:            env.CurrentTime,
	}
}

// Check runs the gate. When Outcome is GateAcquired the caller holds the lock
// and must Rollback(Prior) if the consolidation fails. Errors come from the
// file system or a cancelled ctx.
func (g *ConsolidationGate) Check(ctx context.Context) (GateResult, error) {
	if !g.Enabled {
		return GateResult{Outcome: GateDisabled}, nil
	}
	last, err := g.Lock.LastConsolidatedAt()
	if err != nil {
		return GateResult{}, fmt.Errorf("check consolidation gate: %w", err)
	}
	now := g.clock()
	if now.Sub(last) < g.Interval {
		return GateResult{Outcome: GateTooSoon}, nil
	}
	if !g.startScan(now) {
		return GateResult{Outcome: GateThrottled}, nil
	}
	sessions, err := g.sessionsTouchedSince(ctx, last)
	if err != nil {
		return GateResult{}, fmt.Errorf("check consolidation gate: %w", err)
	}
	res := GateResult{Outcome: GateFewSessions, Sessions: sessions}
	if len(sessions) < g.MinSessions {
		return res, nil
	}
	prior, ok, err := g.Lock.TryAcquire()
	if err != nil {
		return GateResult{}, fmt.Errorf("check consolidation gate: %w", err)
	}
	res.Outcome, res.Prior = GateLockHeld, prior
	if ok {
		res.Outcome = GateAcquired
	}
	return res, nil
}

// clock returns the gate's current time.
func (g *ConsolidationGate) clock() time.Time {
	if g.now == nil {
		return time.Now()
	}
	return g.now()
}

// startScan records a session scan at now unless one ran within ScanInterval.
func (g *ConsolidationGate) startScan(now time.Time) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.lastScan.IsZero() && now.Sub(g.lastScan) < g.ScanInterval {
		return false
	}
	g.lastScan = now
	return true
}

// sessionsTouchedSince lists the ids of transcripts modified after since,
// the current session excluded, sorted. A missing folder has none.
func (g *ConsolidationGate) sessionsTouchedSince(ctx context.Context, since time.Time) ([]string, error) {
	entries, err := os.ReadDir(g.TranscriptDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		id, ok := strings.CutSuffix(e.Name(), transcriptExt)
		if !ok || id == "" || id == g.CurrentSession || !e.Type().IsRegular() {
			continue
		}
		if info, err := e.Info(); err == nil && info.ModTime().After(since) {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids, nil
}
