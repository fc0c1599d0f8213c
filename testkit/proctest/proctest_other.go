//go:build !unix

package proctest

import (
	"os/exec"
	"time"
)

func setGroup(*exec.Cmd) {}

// endGroup kills the child itself: there are no process groups to end here.
func endGroup(cmd *exec.Cmd, _ time.Duration) { cmd.Process.Kill() }
