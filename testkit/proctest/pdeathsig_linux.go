package proctest

import "syscall"

// setParentDeathSignal has the kernel kill the child when the thread that
// started it (the test binary) dies, so a test that panics on its timeout
// leaves nothing behind.
func setParentDeathSignal(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
