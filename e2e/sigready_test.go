//go:build unix

package e2e

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// signalsCaught reports whether the process pid has asked for SIGTERM
// (internal/earlysignal's signal.Notify): Go then runs a thread that
// blocks every signal but the few it cannot, SIGTERM among them, the only
// thread of a Go program with such a mask (/proc/PID/task/*/status,
// SigBlk; see signalThread).
// Before that, in the Go runtime's own start-up, no code of ours has run
// and a SIGTERM ends the process by its default action; no program can
// catch it there. known is false where /proc cannot tell (not Linux, or
// the process is gone).
func signalsCaught(pid int) (caught, known bool) {
	tasks, err := filepath.Glob(filepath.Join("/proc", strconv.Itoa(pid), "task", "*", "status"))
	if err != nil || len(tasks) == 0 {
		return false, false
	}
	for _, p := range tasks {
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		for line := range strings.Lines(string(data)) {
			if mask, ok := strings.CutPrefix(line, "SigBlk:"); ok && signalThread(strings.TrimSpace(mask)) {
				return true, true
			}
		}
	}
	return false, true
}

// signalThread reports whether a thread's blocked-signal mask (hex) is the
// one Go gives its signal thread: signals blocked, but SIGTERM, which no Go
// thread ever blocks for long. A thread being created starts with every
// signal blocked, SIGTERM included, until it sets its own mask: that one is
// not the signal thread (the soak once took it for one, 80 ms into start-up).
func signalThread(mask string) bool {
	m, err := strconv.ParseUint(mask, 16, 64)
	const sigterm = 1 << (syscall.SIGTERM - 1)
	return err == nil && m != 0 && m&sigterm == 0
}

// startupWindow reports whether a SIGTERM sent now to pid may end it by
// the signal without any fault of ours: /proc says its handler is not
// installed yet.
func startupWindow(pid int) bool {
	caught, known := signalsCaught(pid)
	return known && !caught
}
