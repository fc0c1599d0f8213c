package agent

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/memcore"
	"github.com/teammem/teammem/memcore/session"
	"github.com/teammem/teammem/testkit/proctest"
)

// dreamRig is an engine on the team folder of a memory folder whose
// consolidation lock a fake holder takes: the holder's liveness and the
// clock are the test's.
type dreamRig struct {
	*rig
	mem string
	mu  sync.Mutex
	now time.Time
	// alive are the live process ids.
	alive map[int]bool
}

func newDreamRig(t *testing.T, server map[string]string, mod func(*Config)) *dreamRig {
	t.Helper()
	d := &dreamRig{mem: t.TempDir(), now: time.Now(), alive: map[int]bool{}}
	team := filepath.Join(d.mem, "team")
	if err := os.MkdirAll(team, 0o700); err != nil {
		t.Fatal(err)
	}
	d.rig = &rig{dir: team, state: t.TempDir(), remote: newFakeRemote(server)}
	d.engine = d.newEngine(t, func(c *Config) {
		c.Now = d.clock
		c.Consolidation = ConsolidationWatch{MemDir: d.mem, Env: memcore.Env{Now: d.clock, ProcessAlive: d.isAlive}}
		if mod != nil {
			mod(c)
		}
	})
	return d
}

func (d *dreamRig) clock() time.Time {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.now
}

func (d *dreamRig) advance(by time.Duration) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.now = d.now.Add(by)
}

func (d *dreamRig) isAlive(pid int) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.alive[pid]
}

func (d *dreamRig) setAlive(pid int, on bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.alive[pid] = on
}

// takeLock writes the lock as Claude Code does: the holder's pid, the
// file's time when it took it.
func (d *dreamRig) takeLock(t *testing.T, pid int, at time.Time) {
	t.Helper()
	path := filepath.Join(d.mem, session.ConsolidateLockName)
	if err := os.WriteFile(path, []byte(strconv.Itoa(pid)), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, at, at); err != nil {
		t.Fatal(err)
	}
}

// write writes files of the team folder.
func (d *dreamRig) write(t *testing.T, files map[string]string) {
	t.Helper()
	writeTree(t, d.dir, files)
}

// puts returns how many pushes the server saw and their surfaces.
func (d *dreamRig) puts() (int, []string) {
	d.remote.mu.Lock()
	defer d.remote.mu.Unlock()
	return len(d.remote.puts), slices.Clone(d.remote.surfaces)
}

// TestEngineHoldsPushesWhileConsolidating: a live holder's lock keeps
// every change of the folder from the server, cycle after cycle, while
// pulls go on; when the holder exits, the final state goes in one push
// marked as the consolidation's. The same lock never holds again.
func TestEngineHoldsPushesWhileConsolidating(t *testing.T) {
	d := newDreamRig(t, map[string]string{"topic.md": "old\n"}, nil)
	d.sync(t)
	d.takeLock(t, 4242, d.clock().Add(-time.Second))
	d.setAlive(4242, true)

	d.write(t, map[string]string{"topic.md": "draft one\n", "scratch.md": "intermediate\n"})
	rep := d.sync(t)
	if !slices.Equal(rep.Held, []string{"scratch.md", "topic.md"}) || rep.Consolidation == nil || rep.Consolidation.PID != 4242 {
		t.Fatalf("report while consolidating: held %q, %+v", rep.Held, rep.Consolidation)
	}
	d.remote.mu.Lock()
	d.remote.apply(api.PutRequest{Entries: map[string]string{"teammate.md": "from a teammate\n"}})
	d.remote.mu.Unlock()
	d.write(t, map[string]string{"topic.md": "final\n"})
	if err := os.Remove(filepath.Join(d.dir, "scratch.md")); err != nil {
		t.Fatal(err)
	}
	rep = d.sync(t)
	if !slices.Equal(rep.Held, []string{"topic.md"}) || !slices.Equal(rep.Pulled, []string{"teammate.md"}) {
		t.Fatalf("second cycle: held %q, pulled %q; want topic.md held and the teammate's note pulled", rep.Held, rep.Pulled)
	}
	if n, _ := d.puts(); n != 0 || d.remote.snapshot()["topic.md"] != "old\n" {
		t.Fatalf("%d pushes while the lock was held; server topic %q", n, d.remote.snapshot()["topic.md"])
	}

	d.setAlive(4242, false)
	rep = d.sync(t)
	n, surfaces := d.puts()
	if n != 1 || !slices.Equal(surfaces, []string{SurfaceConsolidation}) || !slices.Equal(rep.Pushed, []string{"topic.md"}) {
		t.Fatalf("after the holder exited: %d pushes %q, pushed %q; want one push of topic.md as the consolidation", n, surfaces, rep.Pushed)
	}
	if rep.Consolidation == nil || rep.Consolidation.Ended != "its process exited" {
		t.Errorf("end report: %+v", rep.Consolidation)
	}
	if got := d.remote.snapshot(); got["topic.md"] != "final\n" || got["scratch.md"] != "" {
		t.Errorf("server after the consolidation: %q", got)
	}

	d.setAlive(4242, true) // the same lock, its holder alive again: held once only
	d.write(t, map[string]string{"topic.md": "a person's later edit\n"})
	rep = d.sync(t)
	n, surfaces = d.puts()
	if len(rep.Held) != 0 || n != 2 || surfaces[1] != "" {
		t.Errorf("a later edit under the same lock: held %q, %d pushes %q; want pushed as usual", rep.Held, n, surfaces)
	}
}

// TestEngineConsolidationKeepsTeammateEdits: a teammate's edit of a topic
// the consolidation is rewriting merges (or becomes a conflict copy) while
// pushes are held; nothing of either side is lost once it ends.
func TestEngineConsolidationKeepsTeammateEdits(t *testing.T) {
	base := "one\ntwo\nthree\nfour\nfive\n"
	d := newDreamRig(t, map[string]string{"merge.md": base, "clash.md": "same\n"}, nil)
	d.sync(t)
	d.takeLock(t, 77, d.clock().Add(-time.Second))
	d.setAlive(77, true)
	d.write(t, map[string]string{"merge.md": "ONE\ntwo\nthree\nfour\nfive\n", "clash.md": "consolidated\n"})
	d.remote.mu.Lock()
	d.remote.apply(api.PutRequest{Entries: map[string]string{"merge.md": "one\ntwo\nthree\nfour\nFIVE\n", "clash.md": "teammate\n"}})
	d.remote.mu.Unlock()
	rep := d.sync(t)
	if len(rep.Conflicts) != 1 || !slices.Contains(rep.Held, "merge.md") {
		t.Fatalf("while held: conflicts %q, held %q", rep.Conflicts, rep.Held)
	}
	d.setAlive(77, false)
	d.sync(t)
	if got := d.remote.snapshot()["merge.md"]; got != "ONE\ntwo\nthree\nfour\nFIVE\n" {
		t.Errorf("server merge.md = %q; want both edits", got)
	}
	copied, err := os.ReadFile(filepath.Join(d.dir, filepath.FromSlash(rep.Conflicts[0])))
	if clash := d.local(t)["clash.md"]; err != nil || clash != "teammate\n" || string(copied) != "consolidated\n" {
		t.Errorf("clash.md %q, conflict copy %q (%v); want the teammate's in place and the consolidation's kept", clash, copied, err)
	}
}

// TestEngineConsolidationNotHeld: locks that hold nothing.
func TestEngineConsolidationNotHeld(t *testing.T) {
	for _, tc := range []struct {
		name string
		// setup takes the lock (and writes) before the edit is synced.
		setup func(t *testing.T, d *dreamRig)
	}{
		{"dead holder", func(t *testing.T, d *dreamRig) {
			d.takeLock(t, 31, d.clock().Add(-time.Second))
		}},
		{"over an hour old", func(t *testing.T, d *dreamRig) {
			d.setAlive(31, true)
			d.takeLock(t, 31, d.clock().Add(-time.Hour-time.Minute))
		}},
		{"rolled back", func(t *testing.T, d *dreamRig) {
			d.setAlive(31, true)
			d.takeLock(t, 31, d.clock().Add(-time.Second))
			if err := session.NewConsolidationLock(memcore.Env{PID: 31}, d.mem).Rollback(d.clock().Add(-48 * time.Hour)); err != nil {
				t.Fatal(err)
			}
		}},
		{"over before the engine looked", func(t *testing.T, d *dreamRig) {
			d.setAlive(31, true)
			d.takeLock(t, 31, d.clock().Add(-2*time.Second))
			d.advance(2 * DefaultConsolidationSettle) // the edit below is now that long ago
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := newDreamRig(t, map[string]string{"topic.md": "old\n"}, nil)
			d.sync(t)
			tc.setup(t, d)
			d.write(t, map[string]string{"topic.md": "new\n"})
			rep := d.sync(t)
			if len(rep.Held) != 0 || d.remote.snapshot()["topic.md"] != "new\n" {
				t.Errorf("held %q, server %q; want pushed at once", rep.Held, d.remote.snapshot()["topic.md"])
			}
		})
	}
}

// TestEngineConsolidationSettles: a holder that stays alive (Claude Code
// keeps running after a consolidation) ends the hold once the folder has
// been quiet for the settle time; a restart in between keeps holding, and
// one after it does not hold the same lock again.
func TestEngineConsolidationSettles(t *testing.T) {
	d := newDreamRig(t, map[string]string{"topic.md": "old\n"}, nil)
	d.sync(t)
	d.setAlive(9, true)
	d.takeLock(t, 9, d.clock().Add(-time.Second))
	d.write(t, map[string]string{"topic.md": "consolidated\n"})
	if rep := d.sync(t); len(rep.Held) != 1 {
		t.Fatalf("held %q", rep.Held)
	}
	restart := func() {
		d.engine = d.newEngine(t, func(c *Config) {
			c.Now = d.clock
			c.Consolidation = ConsolidationWatch{MemDir: d.mem, Env: memcore.Env{Now: d.clock, ProcessAlive: d.isAlive}}
		})
	}
	restart()
	if rep := d.sync(t); len(rep.Held) != 1 {
		t.Fatalf("after a restart during the consolidation: held %q", rep.Held)
	}
	d.advance(DefaultConsolidationSettle - time.Second)
	if rep := d.sync(t); len(rep.Held) != 1 {
		t.Fatalf("before the settle time: held %q", rep.Held)
	}
	d.advance(2 * time.Second)
	rep := d.sync(t)
	if len(rep.Held) != 0 || rep.Consolidation == nil || rep.Consolidation.Ended != "the memory folder was quiet for 1m0s" {
		t.Fatalf("after the settle time: held %q, %+v", rep.Held, rep.Consolidation)
	}
	restart()
	d.write(t, map[string]string{"topic.md": "edited by a person\n"})
	if rep := d.sync(t); len(rep.Held) != 0 || d.remote.snapshot()["topic.md"] != "edited by a person\n" {
		t.Errorf("after a restart, the same lock held again: %q", rep.Held)
	}
}

// TestEngineRunPushesWhenConsolidationEnds: Run looks at the lock while
// it holds pushes and pushes once the holder exits, with no other trigger.
func TestEngineRunPushesWhenConsolidationEnds(t *testing.T) {
	d := newDreamRig(t, map[string]string{"topic.md": "old\n"}, func(c *Config) {
		c.Watch, c.Debounce, c.MaxDelay = true, 20*time.Millisecond, 100*time.Millisecond
		c.Consolidation.Every = 10 * time.Millisecond
	})
	d.setAlive(5, true)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.engine.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run = %v", err)
		}
	}()
	proctest.WaitFor(t, "the first pull", func() bool { return d.localHas("topic.md") })
	d.takeLock(t, 5, time.Now().Add(-time.Second))
	d.write(t, map[string]string{"topic.md": "rewritten\n"})
	proctest.WaitFor(t, "a cycle holding the change", func() bool {
		d.rig.mu.Lock()
		defer d.rig.mu.Unlock()
		for _, rep := range d.reports {
			if slices.Contains(rep.Held, "topic.md") {
				return true
			}
		}
		return false
	})
	if d.remote.snapshot()["topic.md"] != "old\n" {
		t.Fatal("pushed while held")
	}
	d.setAlive(5, false)
	proctest.WaitFor(t, "the push after the holder exited", func() bool { return d.remote.snapshot()["topic.md"] == "rewritten\n" })
	if _, surfaces := d.puts(); !slices.Equal(surfaces, []string{SurfaceConsolidation}) {
		t.Errorf("surfaces %q", surfaces)
	}
}

// TestReadConsolidation: what status says of a lock held by this test's
// own (live) process, before, during and after its engine held pushes.
func TestReadConsolidation(t *testing.T) {
	d := newDreamRig(t, map[string]string{"topic.md": "old\n"}, nil)
	d.sync(t)
	journal := d.engine.cfg.Journal.Path()
	if st := readConsolidation(d.mem, journal, true, time.Now()); st != nil {
		t.Fatalf("no lock: %+v", st)
	}
	pid := os.Getpid()
	since := time.Now().Add(-time.Second).Truncate(time.Millisecond)
	d.takeLock(t, pid, since)
	if st := readConsolidation(d.mem, journal, true, time.Now()); st == nil || st.PID != pid || !st.Since.Equal(since) || st.PushesHeld {
		t.Fatalf("a lock just taken: %+v; want in progress, nothing held yet", st)
	}
	d.setAlive(pid, true)
	d.write(t, map[string]string{"topic.md": "new\n"})
	d.sync(t)
	if st := readConsolidation(d.mem, journal, true, time.Now()); st == nil || !st.PushesHeld {
		t.Fatalf("while the engine holds pushes: %+v", st)
	}
	if st := readConsolidation(d.mem, journal, false, time.Now()); st == nil || st.PushesHeld {
		t.Fatalf("with no agent running: %+v; want in progress, nothing held", st)
	}
	d.setAlive(pid, false) // the engine sees the holder gone
	d.sync(t)
	if st := readConsolidation(d.mem, journal, true, time.Now()); st != nil {
		t.Errorf("after the engine saw it end: %+v", st)
	}
	if st := readConsolidation(d.mem, "", false, time.Now().Add(2*DefaultConsolidationSettle)); st != nil {
		t.Errorf("written, then quiet for the settle time: %+v", st)
	}
}

// TestEngineConsolidationSameTick: a write in the same timestamp tick as
// the lock's taking (coarse file system clocks) is the consolidation's.
func TestEngineConsolidationSameTick(t *testing.T) {
	d := newDreamRig(t, map[string]string{"topic.md": "old\n"}, nil)
	d.sync(t)
	d.setAlive(8, true)
	d.write(t, map[string]string{"topic.md": "rewritten\n"})
	info, err := os.Stat(filepath.Join(d.dir, "topic.md"))
	if err != nil {
		t.Fatal(err)
	}
	d.takeLock(t, 8, info.ModTime())
	if rep := d.sync(t); !slices.Equal(rep.Held, []string{"topic.md"}) {
		t.Errorf("held %q; want the write of the lock's tick held", rep.Held)
	}
}
