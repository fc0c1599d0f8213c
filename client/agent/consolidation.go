package agent

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/teammem/teammem/client"
	"github.com/teammem/teammem/internal/atomicfile"
	"github.com/teammem/teammem/memcore"
	"github.com/teammem/teammem/memcore/session"
)

// Consolidation defaults.
const (
	// DefaultConsolidationSettle is how long the memory folder must stay
	// quiet before a consolidation whose holder still runs counts as
	// ended; it is also the least ConsolidationWatch.Settle can be. A
	// consolidation writes one model turn apart, and a turn that reads and
	// rewrites a topic takes tens of seconds: a minute of quiet outlasts
	// it, and delays a person's edit made right after a consolidation by
	// at most that once.
	DefaultConsolidationSettle = time.Minute
	// DefaultConsolidationEvery is how often Run looks at the lock while it
	// holds pushes.
	DefaultConsolidationEvery = time.Second
)

// SurfaceConsolidation is the Teammem-Surface of the push that carries a
// consolidation's changes (client.WithSurface).
const SurfaceConsolidation = "consolidation"

// ConsolidationWatch says which memory folder's consolidation lock
// (memcore/session's §11 lock, <MemDir>/.consolidate-lock) holds the
// engine's pushes. While a consolidation rewrites the folder, local
// changes are applied and kept but not pushed; once it ends they are
// pushed together, as one write where they fit in one.
type ConsolidationWatch struct {
	// MemDir is the auto memory folder: the engine's folder for personal
	// memory, its parent for the team folder. "" watches no lock.
	MemDir string
	// Settle is how long MemDir must stay quiet (no file or folder below
	// it modified) to end a consolidation whose holder still runs (the
	// lock outlives a successful consolidation, §11); below
	// DefaultConsolidationSettle means that.
	Settle time.Duration
	// Every is how often Run looks at the lock while holding pushes; 0
	// means DefaultConsolidationEvery.
	Every time.Duration
	// Env gives the lock its process liveness check (tests); the zero
	// value is the platform's.
	Env memcore.Env
}

// Consolidation is a consolidation that held (or holds) the engine's
// pushes, as a Report and the status name it.
type Consolidation struct {
	// PID is the lock holder's process id and Since when it took the lock.
	PID   int       `json:"pid"`
	Since time.Time `json:"since"`
	// Ended says why it ended: the holder exited, the lock was removed or
	// rolled back, it is over an hour old, or the folder stayed quiet for
	// the settle time; "" while it runs.
	Ended string `json:"ended,omitempty"`
	// EndedAt is when the engine saw it end.
	EndedAt *time.Time `json:"endedAt,omitempty"`
}

// consolidation is the engine's view of its memory folder's lock. A live
// lock holds pushes from the first change below the folder after the lock
// was taken until it ends, and each lock (holder and time) holds them once:
// the lock is remembered, in a record beside the journal that also tells
// status, so that neither the rest of its hour nor a restart holds a
// person's later edits. It is owned by the engine's goroutine.
type consolidation struct {
	lock          *session.ConsolidationLock // nil: no lock watched
	memDir        string
	settle, every time.Duration
	record        string // the record's path, "" for none
	// current is the consolidation holding pushes, nil when none; done is
	// the last one that ended (or was found over), never held again;
	// ended is the one whose end the next push carries, until it succeeds.
	current, done, ended *Consolidation
}

// newConsolidation returns the engine's view of w's lock; the record is
// kept beside the journal at journalPath ("" for none).
func newConsolidation(w ConsolidationWatch, journalPath string) *consolidation {
	c := &consolidation{settle: max(w.Settle, DefaultConsolidationSettle), every: w.Every}
	setDefault(&c.every, DefaultConsolidationEvery)
	if w.MemDir == "" {
		return c
	}
	c.lock, c.memDir = session.NewConsolidationLock(w.Env, w.MemDir), w.MemDir
	if journalPath != "" {
		c.record = ConsolidationRecordPath(journalPath)
		if rec := readConsolidationRecord(c.record); rec != nil {
			if rec.Ended != "" {
				c.done = rec
			} else {
				c.current = rec // held when the engine last stopped: look again
			}
		}
	}
	return c
}

// holding reports whether pushes are held now.
func (c *consolidation) holding() bool { return c.current != nil }

// observe looks at the lock at now: it starts holding pushes for a live
// lock not yet held once when the folder changed since it was taken, and
// ends the hold when the holder is gone, the lock was released or is over
// an hour old, or the folder stayed quiet for the settle time. It reports
// whether the hold ended.
func (c *consolidation) observe(now time.Time) (endedNow bool) {
	if c.lock == nil {
		return false
	}
	h, err := c.lock.Holder()
	if err != nil {
		h = session.LockHolder{} // unreadable: nothing to hold for
	}
	if c.current != nil {
		why := c.endReason(h, now)
		if why == "" {
			return false
		}
		c.finish(why, now)
		return true
	}
	if !h.Live || c.done.is(h) {
		return false
	}
	last := newestChange(c.memDir, c.lock.Path())
	if last.Before(h.Since) {
		return false // nothing written since it was taken: nothing to hold yet
	}
	c.current = &Consolidation{PID: h.PID, Since: h.Since}
	if now.Sub(last) >= c.settle { // it was over before the engine looked
		c.finish(c.quietReason(), now)
		c.ended = nil // nothing was held: the next push is no consolidation's
		return false
	}
	c.save(c.current)
	return false
}

// endReason says why the held consolidation ended at now, "" while it runs.
func (c *consolidation) endReason(h session.LockHolder, now time.Time) string {
	switch {
	case h.PID == 0 && h.Since.IsZero():
		return "the lock was removed"
	case !c.current.is(h):
		return "the lock was rolled back or taken again"
	case !h.Live && now.Sub(h.Since) >= time.Hour:
		return "the lock is over an hour old"
	case !h.Live:
		return "its process exited"
	case now.Sub(newestChange(c.memDir, c.lock.Path())) >= c.settle:
		return c.quietReason()
	}
	return ""
}

// quietReason phrases an end by the settle time.
func (c *consolidation) quietReason() string {
	return "the memory folder was quiet for " + c.settle.String()
}

// finish ends the current hold for why at now.
func (c *consolidation) finish(why string, now time.Time) {
	end := *c.current
	end.Ended, end.EndedAt = why, &now
	c.current, c.done, c.ended = nil, &end, &end
	c.save(&end)
}

// pushed says the push that carried the ended consolidation's changes went
// through.
func (c *consolidation) pushed() { c.ended = nil }

// is reports whether c names the lock h describes (same holder, same time).
func (c *Consolidation) is(h session.LockHolder) bool {
	return c != nil && c.PID == h.PID && c.Since.Equal(h.Since)
}

// save writes the record; a record that cannot be written only costs a
// restart's second look at the same lock.
func (c *consolidation) save(rec *Consolidation) {
	if c.record == "" {
		return
	}
	if data, err := json.Marshal(rec); err == nil {
		atomicfile.Write(c.record, 0o600, atomicfile.Bytes(data))
	}
}

// ConsolidationRecordPath is the file beside a journal where its engine
// records the consolidation it held pushes for last.
func ConsolidationRecordPath(journal string) string {
	return strings.TrimSuffix(journal, ".json") + ".consolidation.json"
}

// readConsolidationRecord reads a record; nil when there is none or it
// does not parse.
func readConsolidationRecord(path string) *Consolidation {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var rec Consolidation
	if json.Unmarshal(data, &rec) != nil || rec.PID <= 0 {
		return nil
	}
	return &rec
}

// newestChange returns the latest modification time of the files and
// folders below dir (a folder's time, so that a removal counts), symlinks
// not followed, leaving out the lock file and dir itself, whose times the
// lock's taking sets; the zero time when nothing can be read. A write in
// the same timestamp tick as the lock's taking shows the same time as the
// lock: callers count a time equal to the lock's as after it.
func newestChange(dir, lock string) time.Time {
	var last time.Time
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir || p == lock {
			return nil // unreadable: what can be read decides
		}
		if info, err := d.Info(); err == nil && info.ModTime().After(last) {
			last = info.ModTime()
		}
		return nil
	})
	return last
}

// hold keeps changes from the server while a consolidation runs, naming
// them and the consolidation in the report.
func (e *Engine) hold(changes []Change, r *Report) {
	for _, c := range changes {
		r.Held = append(r.Held, c.Key)
	}
	slices.Sort(r.Held)
	cur := *e.cons.current
	r.Consolidation = &cur
}

// surface marks ctx's push as a consolidation's while it carries the
// changes of one that ended.
func (c *consolidation) surface(ctx context.Context) context.Context {
	if c.ended == nil {
		return ctx
	}
	return client.WithSurface(ctx, SurfaceConsolidation)
}
