//go:build !windows

package filelock

import (
	"errors"
	"os"
	"syscall"
)

// tryLock takes flock's exclusive lock on f without waiting.
func tryLock(f *os.File) error {
	err := flock(f, syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return ErrLocked
	}
	return err
}

// lockWait takes flock's exclusive lock on f, waiting for it.
func lockWait(f *os.File) error { return flock(f, syscall.LOCK_EX) }

// unlock releases f's lock.
func unlock(f *os.File) error { return flock(f, syscall.LOCK_UN) }

// flock calls flock(2), repeating it when a signal interrupts it.
func flock(f *os.File, how int) error {
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}
