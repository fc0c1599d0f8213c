//go:build !windows

package memcore

import (
	"path/filepath"
	"syscall"
	"testing"
)

func TestSafeReadDoesNotOpenFIFO(t *testing.T) {
	f := newSafeFixture(t)
	if err := syscall.Mkfifo(filepath.Join(f.dir, "pipe.md"), 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	if _, err := SafeRead(f.dir, "pipe.md"); err == nil {
		t.Fatal("SafeRead of a FIFO succeeded")
	}
}
