//go:build unix && !linux

package proctest

import "syscall"

// setParentDeathSignal does nothing where the kernel has no such signal;
// the cleanup of Own still ends the group.
func setParentDeathSignal(*syscall.SysProcAttr) {}
