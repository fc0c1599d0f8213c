//go:build unix

package proctest

import (
	"errors"
	"os/exec"
	"syscall"
	"time"
)

// setGroup makes the child the leader of a new process group.
func setGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	setParentDeathSignal(cmd.SysProcAttr)
}

// endGroup sends SIGTERM to the group cmd leads, waits up to grace for it
// to empty, then sends SIGKILL.
func endGroup(cmd *exec.Cmd, grace time.Duration) {
	pgid := cmd.Process.Pid
	if err := syscall.Kill(-pgid, syscall.SIGTERM); errors.Is(err, syscall.ESRCH) {
		return
	}
	deadline := time.Now().Add(grace)
	for time.Now().Before(deadline) {
		if !groupAlive(pgid) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	syscall.Kill(-pgid, syscall.SIGKILL)
}

// Alive reports whether any process of the group led by pgid still runs
// (zombies not yet reaped count as alive).
func Alive(pgid int) bool { return groupAlive(pgid) }

func groupAlive(pgid int) bool {
	return !errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH)
}
