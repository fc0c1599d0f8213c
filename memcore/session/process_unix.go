//go:build !windows

package session

import (
	"errors"
	"syscall"
)

// processAlive reports whether pid names a live process: kill(pid, 0)
// succeeds, or fails only for lack of permission (the process exists but
// belongs to someone else).
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
