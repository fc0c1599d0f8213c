package session

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/teammem/teammem/memcore"
	"github.com/teammem/teammem/memcore/internal/memtest"
)

// lockEnv is an Env whose process ids are given and whose live processes are
// the set alive.
func lockEnv(pid int, alive map[int]bool, now time.Time) memcore.Env {
	return memcore.Env{
		PID:          pid,
		ProcessAlive: func(p int) bool { return alive[p] },
		Now:          func() time.Time { return now },
	}
}

func TestConsolidationLockLifecycle(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "memory")
	now := time.Now()
	alive := map[int]bool{100: true, 200: true}
	a := NewConsolidationLock(lockEnv(100, alive, now), dir)
	b := NewConsolidationLock(lockEnv(200, alive, now), dir)

	if last, err := a.LastConsolidatedAt(); err != nil || !last.IsZero() {
		t.Fatalf("LastConsolidatedAt before any = %v, %v; want zero", last, err)
	}
	prior, ok, err := a.TryAcquire()
	if err != nil || !ok || !prior.IsZero() {
		t.Fatalf("first TryAcquire = %v, %v, %v; want zero, true, nil", prior, ok, err)
	}
	if got := readLockPID(t, a.Path()); got != 100 {
		t.Fatalf("lock holds pid %d, want 100", got)
	}
	if _, ok, _ := b.TryAcquire(); ok {
		t.Fatal("second process acquired a fresh lock of a live holder")
	}
	if err := a.Rollback(prior); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(a.Path()); !os.IsNotExist(err) {
		t.Fatalf("rollback to zero left the file: %v", err)
	}

	// A completed consolidation a day ago, then a failed one: rollback
	// restores the old time and clears the holder.
	dayAgo := now.Add(-24 * time.Hour).Truncate(time.Second)
	memtest.Write(t, a.Path(), "100")
	if err := os.Chtimes(a.Path(), dayAgo, dayAgo); err != nil {
		t.Fatal(err)
	}
	prior, ok, err = b.TryAcquire()
	if err != nil || !ok || !prior.Equal(dayAgo) {
		t.Fatalf("TryAcquire over a stale lock = %v, %v, %v; want %v, true", prior, ok, err, dayAgo)
	}
	if err := b.Rollback(prior); err != nil {
		t.Fatal(err)
	}
	last, err := b.LastConsolidatedAt()
	if err != nil || !last.Equal(dayAgo) {
		t.Fatalf("LastConsolidatedAt after rollback = %v, %v; want %v", last, err, dayAgo)
	}
	if data, _ := os.ReadFile(a.Path()); len(data) != 0 {
		t.Fatalf("rollback left content %q", data)
	}
}

func TestConsolidationLockSamePIDHeldOnce(t *testing.T) {
	// Two gates in one process, or two containers sharing ~/.claude whose
	// processes are both PID 1: only one may hold the lock.
	dir := t.TempDir()
	env := lockEnv(1, map[int]bool{1: true}, time.Now())
	if _, ok, err := NewConsolidationLock(env, dir).TryAcquire(); err != nil || !ok {
		t.Fatalf("first TryAcquire = %v, %v; want the lock", ok, err)
	}
	if _, ok, err := NewConsolidationLock(env, dir).TryAcquire(); err != nil || ok {
		t.Fatalf("second TryAcquire with the same PID = %v, %v; want held", ok, err)
	}
}

func TestConsolidationLockHolderRules(t *testing.T) {
	now := time.Now()
	tests := []struct {
		name    string
		content string
		age     time.Duration
		alive   bool
		wantOK  bool
	}{
		{"fresh live holder", "200", time.Minute, true, false},
		{"fresh dead holder", "200", time.Minute, false, true},
		{"stale live holder", "200", 2 * time.Hour, true, true},
		{"fresh own pid (another lock of this process, or a container's PID 1)", "100", time.Minute, true, false},
		{"fresh garbage", "not a pid", time.Minute, true, true},
		{"fresh empty (rolled back)", "", time.Minute, true, true},
		{"pid with newline", "200\n", time.Minute, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			l := NewConsolidationLock(lockEnv(100, map[int]bool{100: true, 200: tt.alive}, now), dir)
			memtest.Write(t, l.Path(), tt.content)
			mtime := now.Add(-tt.age)
			if err := os.Chtimes(l.Path(), mtime, mtime); err != nil {
				t.Fatal(err)
			}
			prior, ok, err := l.TryAcquire()
			if err != nil || ok != tt.wantOK {
				t.Fatalf("TryAcquire = %v, %v; want ok %v", ok, err, tt.wantOK)
			}
			want := 100
			if !ok {
				want = parsePID([]byte(tt.content))
			} else if !prior.Equal(mtime) {
				t.Errorf("prior = %v, want %v", prior, mtime)
			}
			if got := readLockPID(t, l.Path()); got != want {
				t.Errorf("lock holds %d, want %d", got, want)
			}
		})
	}
}

func TestProcessAlive(t *testing.T) {
	if !processAlive(os.Getpid()) {
		t.Error("the test process is not alive")
	}
	if processAlive(0) || processAlive(-1) {
		t.Error("pid 0 or -1 reported alive")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if processAlive(cmd.Process.Pid) {
		t.Errorf("exited (and reaped) process %d reported alive", cmd.Process.Pid)
	}
}

// readLockPID reads the holder id from a lock file.
func readLockPID(t *testing.T, path string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return parsePID(data)
}

// lockHelperEnv selects the helper mode of TestConsolidationLockHelperProcess.
const lockHelperEnv = "MEMCORE_LOCK_HELPER_DIR"

// Race parameters: rounds per run, and the time between two rounds' starts.
const (
	raceRounds = 24
	raceStep   = 3 * time.Millisecond
)

// TestConsolidationLockHelperProcess is not a test: run by
// TestConsolidationLockRace in a child process, it says "ready", reads a
// start time (Unix nanoseconds) from stdin, and at start + i*raceStep races
// for the lock of folder <dir>/<i> (busy-waiting on the shared clock, so that
// the racers start within microseconds of each other). It prints one letter
// per round, W (won) or L (lost), and stays alive (so that its pid is live)
// until its stdin closes.
func TestConsolidationLockHelperProcess(t *testing.T) {
	dir := os.Getenv(lockHelperEnv)
	if dir == "" {
		t.Skip("helper process only")
	}
	fmt.Println("ready")
	in := bufio.NewReader(os.Stdin)
	line, _ := in.ReadString('\n')
	start, err := strconv.ParseInt(strings.TrimSpace(line), 10, 64)
	if err != nil {
		fmt.Println("bad start", err)
		os.Exit(1)
	}
	var out strings.Builder
	for i := range raceRounds {
		at := time.Unix(0, start).Add(time.Duration(i) * raceStep)
		for time.Now().Before(at) {
		}
		_, ok, err := NewConsolidationLock(memcore.Env{}, filepath.Join(dir, strconv.Itoa(i))).TryAcquire()
		switch {
		case err != nil:
			out.WriteString("E")
		case ok:
			out.WriteString("W")
		default:
			out.WriteString("L")
		}
	}
	fmt.Println(out.String())
	io.Copy(io.Discard, in)
	os.Exit(0)
}

func TestConsolidationLockRace(t *testing.T) {
	dir := t.TempDir()
	for i := range raceRounds {
		memtest.Mkdir(t, filepath.Join(dir, strconv.Itoa(i)))
		if i%2 == 1 {
			// A stale lock of a dead process: the racers take it over.
			memtest.Write(t, filepath.Join(dir, strconv.Itoa(i), ConsolidateLockName), "999999999")
		}
	}
	results := raceForLock(t, dir, 2)
	for i := range raceRounds {
		won := 0
		for _, r := range results {
			switch r[i] {
			case 'W':
				won++
			case 'L':
			default:
				t.Errorf("round %d: a helper failed: %q", i, r)
			}
		}
		if won != 1 {
			t.Errorf("round %d: %d of %d processes won the lock, want exactly 1 (%v)", i, won, len(results), results)
		}
	}
}

// raceForLock starts n helper processes on dir, lets them race and returns
// what each said (one letter per round).
func raceForLock(t *testing.T, dir string, n int) []string {
	t.Helper()
	type helper struct {
		cmd   *exec.Cmd
		stdin io.WriteCloser
		out   *bufio.Reader
	}
	var hs []helper
	for range n {
		cmd := exec.Command(os.Args[0], "-test.run=^TestConsolidationLockHelperProcess$")
		cmd.Env = append(os.Environ(), lockHelperEnv+"="+dir)
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		hs = append(hs, helper{cmd, stdin, bufio.NewReader(stdout)})
	}
	for _, h := range hs {
		if line, err := h.out.ReadString('\n'); err != nil || line != "ready\n" {
			t.Fatalf("helper did not get ready: %q, %v", line, err)
		}
	}
	start := time.Now().Add(50 * time.Millisecond).UnixNano()
	for _, h := range hs {
		fmt.Fprintln(h.stdin, start)
	}
	var results []string
	for _, h := range hs {
		line, err := h.out.ReadString('\n')
		if err != nil || len(line) != raceRounds+1 {
			t.Fatalf("helper output %q: %v", line, err)
		}
		results = append(results, line[:raceRounds])
	}
	for _, h := range hs {
		h.stdin.Close()
		if err := h.cmd.Wait(); err != nil {
			t.Errorf("helper: %v", err)
		}
	}
	return results
}

// TestConsolidationLockHolder reads the lock without taking it: a missing
// file, a live holder, a dead one, an hour-old one and a rolled-back one.
func TestConsolidationLockHolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "memory")
	now := time.Now().Truncate(time.Second)
	alive := map[int]bool{100: true}
	reader := NewConsolidationLock(lockEnv(300, alive, now), dir)
	if h, err := reader.Holder(); err != nil || h != (LockHolder{}) {
		t.Fatalf("Holder of no file = %+v, %v; want zero", h, err)
	}
	holder := NewConsolidationLock(lockEnv(100, alive, now), dir)
	if _, ok, err := holder.TryAcquire(); err != nil || !ok {
		t.Fatalf("TryAcquire = %v, %v", ok, err)
	}
	taken := now.Add(-10 * time.Minute)
	if err := os.Chtimes(reader.Path(), taken, taken); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		pid   string
		mtime time.Time
		want  LockHolder
	}{
		{"live", "100", taken, LockHolder{PID: 100, Since: taken, Live: true}},
		{"dead holder", "555", taken, LockHolder{PID: 555, Since: taken}},
		{"over an hour", "100", now.Add(-time.Hour - time.Second), LockHolder{PID: 100, Since: now.Add(-time.Hour - time.Second)}},
		{"garbage", "not a pid\n", taken, LockHolder{Since: taken}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			memtest.Write(t, reader.Path(), tc.pid)
			if err := os.Chtimes(reader.Path(), tc.mtime, tc.mtime); err != nil {
				t.Fatal(err)
			}
			h, err := reader.Holder()
			if err != nil || h.PID != tc.want.PID || h.Live != tc.want.Live || !h.Since.Equal(tc.want.Since) {
				t.Errorf("Holder = %+v, %v; want %+v", h, err, tc.want)
			}
		})
	}
	memtest.Write(t, reader.Path(), "100")
	if err := holder.Rollback(taken); err != nil {
		t.Fatal(err)
	}
	if h, err := reader.Holder(); err != nil || h.PID != 0 || h.Live || !h.Since.Equal(taken) {
		t.Errorf("Holder after Rollback = %+v, %v; want no holder since %v", h, err, taken)
	}
}
