//go:build unix

package e2e

import (
	"syscall"
	"testing"
	"time"

	"github.com/teammem/teammem/testkit/proctest"
)

// TestStopAtEveryPhase sends SIGTERM (and SIGINT) to `teammem-agent run`
// in each phase past start-up (TestSIGTERMDuringStartUpExitsCleanly covers
// start-up itself): while its first pull hangs on a server that does not
// answer, while it watches, while an edit waits for its debounce, and a
// second signal while the shutdown's last push hangs. Every time the agent
// ends by itself (never by the signal) within its shutdown timeout, and
// with exit 0 where nothing was left behind; an edit it could not push is
// kept on disk for the next run.
func TestStopAtEveryPhase(t *testing.T) {
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	putAll(t, srv, map[string]string{"a.md": "a\n"})
	pause := func() func() {
		srv.cmd.Process.Signal(syscall.SIGSTOP)
		return func() { srv.cmd.Process.Signal(syscall.SIGCONT) }
	}
	start := func(dir, state string) *proc {
		args := append([]string{"run", "--debounce", "2s", "--max-delay", "4s", "--poll", "1s", "--shutdown-timeout", "2s"}, runArgs(srv, dir, state)...)
		return startProc(t, agentBin, args...)
	}
	ended := func(t *testing.T, p *proc, sig syscall.Signal, wantCode int, within time.Duration) {
		t.Helper()
		began := time.Now()
		code := p.stop(t, sig)
		took := time.Since(began)
		switch {
		case !p.cmd.ProcessState.Exited():
			t.Errorf("%v ended the agent by the signal (%v); want an exit of its own\n%s", sig, p.cmd.ProcessState, p.stderr)
		case wantCode >= 0 && code != wantCode:
			t.Errorf("exit %d after %v; want %d\n%s", code, sig, wantCode, p.stderr)
		case took > within:
			t.Errorf("took %v to exit after %v; want within %v", took, sig, within)
		}
	}

	t.Run("first pull hangs", func(t *testing.T) {
		resume := pause()
		defer resume()
		p := start(t.TempDir(), t.TempDir())
		time.Sleep(700 * time.Millisecond) // past start-up, inside the pull
		if startupWindow(p.cmd.Process.Pid) {
			t.Fatal("the agent has not asked for SIGTERM 700 ms after its start")
		}
		ended(t, p, syscall.SIGTERM, -1, 10*time.Second)
	})
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run("watching/"+sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			p := start(dir, t.TempDir())
			proctest.WaitFor(t, "the first pull", func() bool { return read(dir, "a.md") == "a\n" })
			ended(t, p, sig, 0, 5*time.Second)
		})
	}
	t.Run("edit waiting for its debounce", func(t *testing.T) {
		dir := t.TempDir()
		p := start(dir, t.TempDir())
		proctest.WaitFor(t, "the first pull", func() bool { return read(dir, "a.md") == "a\n" })
		write(t, dir, "pending.md", "pending\n")
		time.Sleep(300 * time.Millisecond) // seen, not yet pushed (2 s debounce)
		ended(t, p, syscall.SIGTERM, 0, 5*time.Second)
		if got := srv.entries(repo)["pending.md"]; got != "pending\n" {
			t.Errorf("the pending edit was not pushed at shutdown: %q", got)
		}
	})
	t.Run("second signal while the last push hangs", func(t *testing.T) {
		dir := t.TempDir()
		p := start(dir, t.TempDir())
		proctest.WaitFor(t, "the first pull", func() bool { return read(dir, "a.md") == "a\n" })
		write(t, dir, "stuck.md", "stuck\n")
		time.Sleep(300 * time.Millisecond)
		resume := pause()
		p.cmd.Process.Signal(syscall.SIGTERM)
		time.Sleep(200 * time.Millisecond)
		ended(t, p, syscall.SIGTERM, -1, 10*time.Second)
		resume()
		if read(dir, "stuck.md") != "stuck\n" {
			t.Error("the edit the shutdown could not push is gone from the folder")
		}
	})
}
