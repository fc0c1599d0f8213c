// Package proctest starts the programs a test needs so that none of them
// outlives the test: each runs in a process group of its own, which is
// ended (SIGTERM, then SIGKILL after a grace period) when the test ends,
// whether it passed, failed or stopped early; on Linux the kernel also kills
// it if the test binary itself dies (a timeout panic, a kill).
package proctest

import (
	"os/exec"
	"testing"
	"time"
)

// Grace is how long a group has between SIGTERM and SIGKILL.
const Grace = 3 * time.Second

// Own prepares cmd, not yet started, to run in its own process group that
// is ended when t ends. Call it before cmd.Start; it registers the cleanup
// first, so that it runs after any cleanup the caller registers later (a
// caller's own orderly stop and Wait come first, then anything left of the
// group is ended).
func Own(t testing.TB, cmd *exec.Cmd) {
	t.Helper()
	setGroup(cmd)
	t.Cleanup(func() {
		if cmd.Process != nil {
			endGroup(cmd, Grace)
		}
	})
}

// Command is exec.Command prepared by Own.
func Command(t testing.TB, name string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(name, args...)
	Own(t, cmd)
	return cmd
}
