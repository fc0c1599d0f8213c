//go:build unix

package e2e

import (
	"context"
	"fmt"
	"io/fs"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/teammem/teammem/client"
	"github.com/teammem/teammem/memcore"
	"github.com/teammem/teammem/testkit/proctest"
)

// soakDuration is how long TestSoakRandomized loads the agents:
// SOAK_DURATION (a Go duration; make soak sets it), else 40 s, the short
// version make test runs.
func soakDuration(t *testing.T) time.Duration {
	v := os.Getenv("SOAK_DURATION")
	if v == "" {
		return 40 * time.Second
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		t.Fatalf("SOAK_DURATION=%q: want a duration such as 10m", v)
	}
	return d
}

// soakSeed is SOAK_SEED when set (to replay a run's sequence of
// operations), else a new one.
func soakSeed(t *testing.T) uint64 {
	if v := os.Getenv("SOAK_SEED"); v != "" {
		s, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("SOAK_SEED=%q: want a number", v)
		}
		return s
	}
	return uint64(time.Now().UnixNano())
}

// Names of the soak's files: stable topics are only ever appended to (by
// one machine, or two at once), ephemeral ones are created, renamed and
// deleted but never edited.
const (
	soakStable = 8
	soakIndex  = "MEMORY.md"
)

func stableKey(i int) string { return fmt.Sprintf("stable-%d.md", i) }

// soakMachine is one teammate's machine: a team folder with its state
// folder and the `teammem-agent run` syncing it (nil while it is down).
type soakMachine struct {
	n          int
	dir, state string
	mu         sync.Mutex
	agent      *proc
	started    time.Time
	upAt       time.Time // when a down agent is started again
	stopping   bool      // a SIGTERM is being waited for
}

// soakRun is the state of one randomized run and its oracle's records.
type soakRun struct {
	t        *testing.T
	rng      *rand.Rand
	srv      *serverProc
	addr     string
	dataDir  string
	srvUpAt  time.Time // zero while the server runs
	machines []*soakMachine
	seq      int
	// The oracle: index lines and stable-topic lines appended (line →
	// machine), ephemeral files alive (key → content) and deleted.
	indexLines map[string]int
	edits      map[string]editRec
	alive      map[string]string
	deleted    map[string]bool
	// What happened.
	ops, appends, edits2, creates, deletes, renames, sigkills, serverKills int
	// mu guards terms, and srv, srvUpAt and serverKills, which the SIGTERM
	// watchers read.
	mu    sync.Mutex
	terms []termResult
}

// editRec is a line appended to a stable topic by a machine.
type editRec struct {
	key     string
	machine int
}

// termResult is how an agent ended after a SIGTERM.
type termResult struct {
	machine int
	after   time.Duration // since the agent was started
	exit    int
	signal  bool // ended by a signal, not by exiting
	// early: the SIGTERM was sent while the Go runtime was still starting,
	// before the handler could be installed (startupWindow).
	early bool
	// unflushed counts the index lines appended on the machine before the
	// SIGTERM that the server lacked when the agent had exited 0, the
	// server up all along (-1: not checked, the server was down meanwhile).
	unflushed int
	stderr    string
}

// TestSoakRandomized is issue 29's randomized run: three teammates' agents
// (real `teammem-agent run` processes, one repository) against a real
// server, under random operations for soakDuration: index lines appended
// (sometimes on two machines at once), topics edited on two machines at
// once, topics created, renamed and deleted, agents SIGKILLed and
// SIGTERMed (and started again), the server killed with SIGKILL and
// started again on its data. Then the load stops and everything must
// converge, and the oracle checks that no index line and no edit was lost
// (an edit may live in its machine's conflict copy), no deleted file came
// back, every living file has its content, and every SIGTERM ended its
// agent with exit 0 (but one sent while the Go runtime itself was still
// starting, before any code of ours ran: counted apart, see
// signalsCaught). The seed is printed: SOAK_SEED=… replays the same
// sequence of operations (the timing, and so the interleavings, differ).
func TestSoakRandomized(t *testing.T) {
	seed := soakSeed(t)
	dur := soakDuration(t)
	t.Logf("soak: seed %d, %v (replay: SOAK_SEED=%d SOAK_DURATION=%v)", seed, dur, seed, dur)
	s := &soakRun{t: t, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), dataDir: t.TempDir(),
		indexLines: map[string]int{}, edits: map[string]editRec{}, alive: map[string]string{}, deleted: map[string]bool{}}
	s.srv = startServer(t, s.dataDir, "127.0.0.1:0")
	s.addr = s.srv.addr
	seedFiles := map[string]string{soakIndex: "- the team's index\n"}
	for i := range soakStable {
		seedFiles[stableKey(i)] = fmt.Sprintf("# stable %d\n", i)
	}
	for i := range 10 {
		k, c := fmt.Sprintf("e/seed-%d.md", i), fmt.Sprintf("seed ephemeral %d\n", i)
		seedFiles[k], s.alive[k] = c, c
	}
	putAll(t, s.srv, seedFiles)
	for n := range 3 {
		m := &soakMachine{n: n, dir: t.TempDir(), state: t.TempDir()}
		s.machines = append(s.machines, m)
		s.startAgent(m)
	}
	for _, m := range s.machines { // every machine holds the seed before the load
		proctest.WaitFor(t, fmt.Sprintf("machine %d's first pull", m.n), func() bool { return read(m.dir, stableKey(soakStable-1)) != absent })
	}
	end := time.Now().Add(dur)
	for time.Now().Before(end) {
		s.step()
		time.Sleep(time.Duration(20+s.rng.IntN(100)) * time.Millisecond)
	}
	s.settle()
	s.check()
}

// step does one random operation, and starts what is due to start again.
func (s *soakRun) step() {
	s.ops++
	s.restartDue()
	m := s.machines[s.rng.IntN(len(s.machines))]
	other := s.machines[(m.n+1+s.rng.IntN(len(s.machines)-1))%len(s.machines)]
	switch p := s.rng.IntN(1000); {
	case p < 300:
		s.appendIndex(m)
	case p < 380:
		s.appendIndex(m)
		s.appendIndex(other) // two machines at once
	case p < 550:
		s.editStable(m, s.rng.IntN(soakStable))
	case p < 620:
		k := s.rng.IntN(soakStable)
		s.editStable(m, k)
		s.editStable(other, k) // the same topic on two machines at once
	case p < 770:
		s.create(m)
	case p < 850:
		s.remove(m, false)
	case p < 910:
		s.remove(m, true)
	case p < 945:
		s.sigkill(m)
	case p < 975:
		s.sigterm(m)
	case p < 983:
		s.killServer()
	default:
		s.appendIndex(m)
	}
}

// next returns a number unique in the run.
func (s *soakRun) next() int { s.seq++; return s.seq }

// appendIndex appends a line to m's MEMORY.md as the assistant does
// (O_APPEND).
func (s *soakRun) appendIndex(m *soakMachine) {
	line := fmt.Sprintf("- note %d from machine %d", s.next(), m.n)
	if s.appendLine(m, soakIndex, line) {
		s.indexLines[line] = m.n
		s.appends++
	}
}

// editStable appends a line to stable topic i on m.
func (s *soakRun) editStable(m *soakMachine, i int) {
	line := fmt.Sprintf("edit %d from machine %d", s.next(), m.n)
	if s.appendLine(m, stableKey(i), line) {
		s.edits[line] = editRec{key: stableKey(i), machine: m.n}
		s.edits2++
	}
}

// appendLine appends line to key in m's folder; false when the file is
// not there (not pulled yet).
func (s *soakRun) appendLine(m *soakMachine, key, line string) bool {
	f, err := os.OpenFile(filepath.Join(m.dir, key), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	if _, err := f.WriteString(line + "\n"); err != nil {
		s.t.Fatalf("append to %s on machine %d: %v", key, m.n, err)
	}
	return true
}

// create writes a new ephemeral topic on m.
func (s *soakRun) create(m *soakMachine) {
	k := fmt.Sprintf("e/m%d-%d.md", m.n, s.next())
	c := fmt.Sprintf("ephemeral %s\n", k)
	write(s.t, m.dir, k, c)
	s.alive[k] = c
	s.creates++
}

// remove deletes (or, with rename, renames) an ephemeral topic that is in
// m's folder.
func (s *soakRun) remove(m *soakMachine, rename bool) {
	var have []string
	for _, k := range slices.Sorted(maps.Keys(s.alive)) {
		if read(m.dir, k) == s.alive[k] {
			have = append(have, k)
		}
	}
	if len(have) <= 4 { // keep the repository far from the mass-delete rail
		return
	}
	k := have[s.rng.IntN(len(have))]
	if rename {
		nk := fmt.Sprintf("e/m%d-%d-renamed.md", m.n, s.next())
		if err := os.Rename(filepath.Join(m.dir, k), filepath.Join(m.dir, nk)); err != nil {
			s.t.Fatal(err)
		}
		s.alive[nk] = s.alive[k]
		s.renames++
	} else {
		if err := os.Remove(filepath.Join(m.dir, k)); err != nil {
			s.t.Fatal(err)
		}
		s.deletes++
	}
	delete(s.alive, k)
	s.deleted[k] = true
}

// startAgent starts m's `teammem-agent run`.
func (s *soakRun) startAgent(m *soakMachine) {
	// --shutdown-timeout: a loaded machine's flush is judged on what it
	// pushes, not on how fast.
	args := []string{"run", "--debounce", "100ms", "--max-delay", "1s", "--poll", "1s", "--shutdown-timeout", "20s",
		"--server", "http://" + s.addr, "--repo", repo, "--dir", m.dir, "--state-dir", m.state, "--log-level", "warn"}
	m.agent, m.started, m.upAt = startProc(s.t, agentBin, args...), time.Now(), time.Time{}
}

// sigkill kills m's agent with SIGKILL; it starts again within a second
// (its folder keeps changing meanwhile).
func (s *soakRun) sigkill(m *soakMachine) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.agent == nil || m.stopping {
		return
	}
	m.agent.cmd.Process.Kill()
	m.agent.wait()
	m.agent, m.upAt = nil, time.Now().Add(time.Duration(s.rng.IntN(1000))*time.Millisecond)
	s.sigkills++
}

// sigterm sends SIGTERM to m's agent and, in the background, records how
// it ended; it starts again within a second of its exit.
func (s *soakRun) sigterm(m *soakMachine) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.agent == nil || m.stopping {
		return
	}
	p, started, delay := m.agent, m.started, time.Duration(s.rng.IntN(1000))*time.Millisecond
	m.stopping = true
	var mine []string // the index lines this machine appended so far: the flush must push them
	for line, n := range s.indexLines {
		if n == m.n {
			mine = append(mine, line)
		}
	}
	s.mu.Lock()
	kills, down := s.serverKills, !s.srvUpAt.IsZero()
	s.mu.Unlock()
	go func() {
		early := startupWindow(p.cmd.Process.Pid)
		p.cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { p.wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			p.cmd.Process.Kill()
			<-done
		}
		st := p.cmd.ProcessState
		r := termResult{machine: m.n, after: time.Since(started), exit: st.ExitCode(), signal: !st.Exited(), early: early, unflushed: -1, stderr: p.stderr.String()}
		s.mu.Lock()
		if st.Exited() && st.ExitCode() == 0 && !down && s.serverKills == kills {
			if index, ok := s.srv.entries(repo)[soakIndex]; ok {
				r.unflushed = 0
				for _, line := range mine {
					if !strings.Contains(index, line+"\n") {
						r.unflushed++
					}
				}
			}
		}
		s.terms = append(s.terms, r)
		s.mu.Unlock()
		m.mu.Lock()
		m.agent, m.stopping, m.upAt = nil, false, time.Now().Add(delay)
		m.mu.Unlock()
	}()
}

// killServer kills the server with SIGKILL; it starts again on its data
// and port within a second.
func (s *soakRun) killServer() {
	if !s.srvUpAt.IsZero() {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.srv.cmd.Process.Kill()
	s.srv.wait()
	s.srvUpAt = time.Now().Add(time.Duration(s.rng.IntN(1000)) * time.Millisecond)
	s.serverKills++
}

// restartDue starts the server and the agents whose time has come.
func (s *soakRun) restartDue() {
	if !s.srvUpAt.IsZero() && time.Now().After(s.srvUpAt) {
		srv := startServer(s.t, s.dataDir, s.addr)
		s.mu.Lock()
		s.srv, s.srvUpAt = srv, time.Time{}
		s.mu.Unlock()
	}
	for _, m := range s.machines {
		m.mu.Lock()
		if m.agent == nil && !m.stopping && time.Now().After(m.upAt) {
			s.startAgent(m)
		}
		m.mu.Unlock()
	}
}

// settle waits for the SIGTERMs in flight, starts whatever is down, and
// waits until every folder holds exactly the server's entries (besides its
// own conflict copies).
func (s *soakRun) settle() {
	stopped := time.Now()
	waitLong(s.t, "the SIGTERMed agents to exit", 60*time.Second, func() bool {
		for _, m := range s.machines {
			m.mu.Lock()
			busy := m.stopping
			m.mu.Unlock()
			if busy {
				return false
			}
		}
		return true
	})
	for _, m := range s.machines {
		m.mu.Lock()
		m.upAt = time.Time{}
		m.mu.Unlock()
	}
	s.srvUpAt = time.Now().Add(-time.Second)
	if s.srv.cmd.ProcessState == nil { // running
		s.srvUpAt = time.Time{}
	}
	s.restartDue()
	var why string
	waitLong(s.t, "convergence", 3*time.Minute, func() bool {
		why = s.divergence()
		return why == ""
	})
	s.t.Logf("soak: %d operations (%d index lines, %d topic edits, %d creates, %d deletes, %d renames), %d agent SIGKILLs, %d SIGTERMs, %d server SIGKILLs; converged %v after the load stopped",
		s.ops, s.appends, s.edits2, s.creates, s.deletes, s.renames, s.sigkills, len(s.terms), s.serverKills, time.Since(stopped).Round(100*time.Millisecond))
}

// waitLong is waitFor with its own timeout; it fails naming what did not
// happen.
func waitLong(t *testing.T, what string, d time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", d, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// synced returns a folder's files but its conflict copies and temporary
// files, as far as it can read them while the agent writes: a file that
// goes away between the listing and the reading is left out (the next
// look sees the folder settled).
func synced(dir string) map[string]string {
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		k := filepath.ToSlash(rel)
		if strings.Contains(k, ".conflict-") || memcore.IsTempName(k) {
			return nil
		}
		if data, err := os.ReadFile(p); err == nil {
			out[k] = string(data)
		}
		return nil
	})
	return out
}

// divergence says how the folders and the server differ, "" when they
// agree.
func (s *soakRun) divergence() string {
	srv := s.srv.entries(repo)
	if srv == nil {
		return "the server cannot say"
	}
	for _, m := range s.machines {
		got := synced(m.dir)
		if !maps.Equal(got, srv) {
			return fmt.Sprintf("machine %d: %d files, the server %d entries", m.n, len(got), len(srv))
		}
	}
	return ""
}

// check is the oracle, run once everything converged.
func (s *soakRun) check() {
	t := s.t
	srv := s.srv.entries(repo)
	lost := 0
	for line, n := range s.indexLines {
		if !strings.Contains(srv[soakIndex], line+"\n") {
			lost++
			if lost <= 10 {
				t.Errorf("index line %q (machine %d) is lost: %s", line, n, s.trace(line))
			}
		}
	}
	copies := make([]map[string]string, len(s.machines))
	for i, m := range s.machines {
		copies[i] = conflictCopies(t, m.dir)
	}
	lostEdits, inCopies := 0, 0
	for line, e := range s.edits {
		switch {
		case strings.Contains(srv[e.key], line+"\n"):
		case anyHolds(copies[e.machine], line+"\n"):
			inCopies++
		default:
			lostEdits++
			if lostEdits <= 10 {
				t.Errorf("edit %q of %s (machine %d) is lost", line, e.key, e.machine)
			}
		}
	}
	resurrected := 0
	for k := range s.deleted {
		if _, ok := srv[k]; ok {
			resurrected++
			t.Errorf("%s was deleted and is back", k)
		}
	}
	missing := 0
	for k, c := range s.alive {
		if srv[k] != c {
			missing++
			t.Errorf("%s: %.60q on the server, want %.60q", k, srv[k], c)
		}
	}
	bySignal, inRuntime, unclean, flushChecked, unflushed := 0, 0, 0, 0, 0
	for _, r := range s.terms {
		if r.unflushed >= 0 {
			flushChecked++
		}
		if r.unflushed > 0 {
			unflushed += r.unflushed
			t.Errorf("machine %d's agent exited 0 on SIGTERM %v after it started without pushing %d of its index lines:\n%s", r.machine, r.after, r.unflushed, r.stderr)
		}
		switch {
		case r.signal && r.early:
			inRuntime++
		case r.signal:
			bySignal++
			t.Errorf("machine %d's agent, SIGTERMed %v after it started, ended by the signal:\n%s", r.machine, r.after, r.stderr)
		case r.exit != 0:
			unclean++
			t.Errorf("machine %d's agent, SIGTERMed %v after it started, exited %d:\n%s", r.machine, r.after, r.exit, r.stderr)
		}
	}
	t.Logf("soak oracle: %d of %d index lines lost, %d of %d edits lost (%d kept in conflict copies), %d of %d deleted files back, %d of %d living files wrong, %d SIGTERMs: %d ended by the signal with the handler in place, %d sent in the Go runtime's own start-up (before any handler can be in place) ended by it, %d exited non-zero; %d index lines not flushed by the %d clean exits checked (server up throughout)",
		lost, len(s.indexLines), lostEdits, len(s.edits), inCopies, resurrected, len(s.deleted), missing, len(s.alive), len(s.terms), bySignal, inRuntime, unclean, unflushed, flushChecked)
}

// trace says where a lost index line went, for the failure's message:
// which versions of the server's index held it and which dropped it, and
// which machines' folders still hold it (in the index or a conflict copy).
func (s *soakRun) trace(line string) string {
	ctx := context.Background()
	var b strings.Builder
	h, err := s.srv.api.History(ctx, repo, soakIndex, client.HistoryOptions{Limit: 1000})
	if err != nil {
		return fmt.Sprintf("(no history: %v)", err)
	}
	had := false
	for _, rev := range slices.Backward(h.Revisions) { // oldest first
		c, err := s.srv.api.Revision(ctx, repo, soakIndex, rev.Version)
		if err != nil {
			fmt.Fprintf(&b, "version %d unreadable (%v); ", rev.Version, err)
			continue
		}
		if has := strings.Contains(c.Content, line+"\n"); has != had {
			verb := "dropped"
			if has {
				verb = "added"
			}
			fmt.Fprintf(&b, "%s at version %d (%s, %d lines); ", verb, rev.Version, rev.At, strings.Count(c.Content, "\n"))
			had = has
		}
	}
	for _, m := range s.machines {
		fmt.Fprintf(&b, "machine %d: in its index %v, in a conflict copy %v; ", m.n,
			strings.Contains(read(m.dir, soakIndex), line+"\n"), anyHolds(conflictCopies(s.t, m.dir), line+"\n"))
	}
	return b.String()
}

// anyHolds reports whether any of the files holds s.
func anyHolds(files map[string]string, s string) bool {
	for _, c := range files {
		if strings.Contains(c, s) {
			return true
		}
	}
	return false
}
