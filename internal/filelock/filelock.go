// Package filelock is the project's one implementation of an exclusive,
// advisory file lock (flock on Unix, LockFileEx on Windows). The operating
// system releases it when the holder's process dies, so a crash never
// leaves a stale lock. The agent's folder lock, the server's SQLite store
// and memcore's consolidation lock use it.
package filelock

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// ErrLocked is wrapped by TryLock's error when another holder has the lock.
var ErrLocked = errors.New("locked by another process")

// Lock is a held lock on one file; Release drops it.
type Lock struct {
	f *os.File
}

// TryLock takes the lock on path without waiting, creating the file (mode
// 0600) when missing; its folder must exist. When another open file (this
// process's or another's) holds the lock, the error wraps ErrLocked.
func TryLock(path string) (*Lock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open lock file: %w", err)
	}
	if err := tryLock(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return &Lock{f: f}, nil
}

// WritePID records the current process id in the lock file, for messages
// naming the holder (see HolderPID).
func (l *Lock) WritePID() error {
	if err := l.f.Truncate(0); err != nil {
		return err
	}
	_, err := l.f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return err
}

// Release drops the lock and closes the file; the file stays for the next
// holder. Releasing a nil Lock does nothing.
func (l *Lock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := errors.Join(unlock(l.f), l.f.Close())
	l.f = nil
	return err
}

// HolderPID returns the process id recorded in the lock file at path by
// WritePID, or 0 when there is none or it cannot be read.
func HolderPID(path string) int {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || pid <= 0 {
		return 0
	}
	return pid
}

// Held reports whether some process holds the lock on path (false when the
// file does not exist). It takes and drops the lock to find out.
func Held(path string) bool {
	if _, err := os.Stat(path); err != nil {
		return false
	}
	l, err := TryLock(path)
	if err != nil {
		return errors.Is(err, ErrLocked)
	}
	l.Release()
	return false
}

// Wait takes the lock on the open file f, waiting as long as it takes.
func Wait(f *os.File) error { return lockWait(f) }

// Unlock releases a lock taken by Wait.
func Unlock(f *os.File) error { return unlock(f) }
