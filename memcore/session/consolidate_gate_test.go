package session

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/teammem/teammem/memcore"
	"github.com/teammem/teammem/memcore/internal/memtest"
)

// touch writes a file and sets its modification time.
func touch(t *testing.T, path string, mtime time.Time) {
	t.Helper()
	memtest.Write(t, path, "{}\n")
	if err := os.Chtimes(path, mtime, mtime); err != nil {
		t.Fatal(err)
	}
}

func TestConsolidationGate(t *testing.T) {
	root := t.TempDir()
	memDir := filepath.Join(root, "memory")
	transcripts := filepath.Join(root, "transcripts")
	now := time.Now().Truncate(time.Second)
	env := memcore.Env{PID: os.Getpid(), Now: func() time.Time { return now }}
	g := NewConsolidationGate(env, memDir, transcripts, "current")
	check := func(want GateOutcome) GateResult {
		t.Helper()
		res, err := g.Check(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if res.Outcome != want {
			t.Fatalf("Check = %+v, want outcome %q", res, want)
		}
		return res
	}

	g.Enabled = false
	check(GateDisabled)
	g.Enabled = true

	// Last consolidated 25 hours ago; six transcripts touched since, one of
	// them the current session's, plus an old one and some non-transcripts.
	last := now.Add(-25 * time.Hour)
	touch(t, filepath.Join(memDir, ConsolidateLockName), last)
	for _, id := range []string{"a", "b", "c", "current"} {
		touch(t, filepath.Join(transcripts, id+".jsonl"), now.Add(-time.Hour))
	}
	touch(t, filepath.Join(transcripts, "old.jsonl"), now.Add(-30*time.Hour))
	touch(t, filepath.Join(transcripts, "notes.md"), now.Add(-time.Hour))
	memtest.Mkdir(t, filepath.Join(transcripts, "dir.jsonl"))

	res := check(GateFewSessions)
	if diff := cmp.Diff([]string{"a", "b", "c"}, res.Sessions); diff != "" {
		t.Errorf("sessions (-want +got):\n%s", diff)
	}
	touch(t, filepath.Join(transcripts, "d.jsonl"), now.Add(-time.Minute))
	touch(t, filepath.Join(transcripts, "e.jsonl"), now.Add(-time.Minute))
	check(GateThrottled) // enough now, but the last scan was just now

	now = now.Add(11 * time.Minute)
	res = check(GateAcquired)
	if !res.Prior.Equal(last) || len(res.Sessions) != 5 {
		t.Errorf("acquired with prior %v and sessions %v; want %v and 5", res.Prior, res.Sessions, last)
	}
	if got := readLockPID(t, g.Lock.Path()); got != os.Getpid() {
		t.Errorf("lock holds %d, want our pid", got)
	}
	check(GateTooSoon) // the lock's mtime is now the last consolidation

	if err := g.Lock.Rollback(res.Prior); err != nil {
		t.Fatal(err)
	}
	check(GateThrottled)
	now = now.Add(11 * time.Minute)
	check(GateAcquired)
}

func TestConsolidationGateLockHeld(t *testing.T) {
	root := t.TempDir()
	now := time.Now()
	env := memcore.Env{PID: 100, Now: func() time.Time { return now }, ProcessAlive: func(p int) bool { return p == 200 }}
	g := NewConsolidationGate(env, filepath.Join(root, "memory"), filepath.Join(root, "t"), "")
	for _, id := range []string{"1", "2", "3", "4", "5"} {
		touch(t, filepath.Join(root, "t", id+".jsonl"), now)
	}
	// Live pid 200 took the lock 30 minutes ago (a shorter interval lets
	// the gate get that far).
	lock := filepath.Join(root, "memory", ConsolidateLockName)
	memtest.Write(t, lock, "200")
	if err := os.Chtimes(lock, now.Add(-30*time.Minute), now.Add(-30*time.Minute)); err != nil {
		t.Fatal(err)
	}
	g.Interval = 10 * time.Minute
	res, err := g.Check(context.Background())
	if err != nil || res.Outcome != GateLockHeld {
		t.Fatalf("Check = %+v, %v; want lock held", res, err)
	}
}
