package session

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/teammem/teammem/internal/atomicfile"
	"github.com/teammem/teammem/internal/filelock"
	"github.com/teammem/teammem/memcore"
)

// ConsolidateLockName is the consolidation lock's file name in the auto
// memory folder.
const ConsolidateLockName = ".consolidate-lock"

// holderStaleAfter is how long a lock whose holder is still alive is
// respected.
const holderStaleAfter = time.Hour

// ConsolidationLock is the consolidation lock of §11: the file's content is
// the holder's process id, its modification time the time of the last
// completed consolidation.
//
// The check-and-take step of TryAcquire runs under an OS file lock on the
// lock file (flock, LockFileEx) and a missing file is created atomically with
// its content (hard link of a complete temporary file), so of several
// processes racing for a free lock exactly one wins. The read-back of the
// original is kept as a second guard for file systems without file locks.
// A ConsolidationLock value is safe for use by one goroutine at a time.
type ConsolidationLock struct {
	path  string
	pid   int
	alive func(pid int) bool
	now   func() time.Time
}

// NewConsolidationLock returns the lock of an auto memory folder. The holder
// id is env.PID (the current process when 0), liveness comes from
// env.ProcessAlive (a platform check when nil) and the clock from env.Now.
func NewConsolidationLock(env memcore.Env, autoMemDir string) *ConsolidationLock {
	l := &ConsolidationLock{
		path:  filepath.Join(autoMemDir, ConsolidateLockName),
		pid:   env.PID,
		alive: env.ProcessAlive,
		now:   env.CurrentTime,
	}
	if l.pid == 0 {
		l.pid = os.Getpid()
	}
	if l.alive == nil {
		l.alive = processAlive
	}
	return l
}

// Path returns the lock file's path.
func (l *ConsolidationLock) Path() string { return l.path }

// LastConsolidatedAt returns the lock file's modification time, or the zero
// time when the file does not exist.
func (l *ConsolidationLock) LastConsolidatedAt() (time.Time, error) {
	info, err := os.Stat(l.path)
	if errors.Is(err, fs.ErrNotExist) {
		return time.Time{}, nil
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("read consolidation time: %w", err)
	}
	return info.ModTime(), nil
}

// LockHolder is what the lock file says of its holder (§11), as Holder
// reads it.
type LockHolder struct {
	// PID is the process id the file names, 0 when it names none (a
	// rolled-back lock is empty).
	PID int
	// Since is the file's modification time: when the holder took the lock.
	Since time.Time
	// Live is true when a process holds the lock by §11's rule: PID names
	// a live process and the file is under an hour old. TryAcquire refuses
	// a live lock; any other is free to take.
	Live bool
}

// Holder reads the lock file without taking it: who holds it, since when,
// and whether that holder still counts. A missing file is the zero
// LockHolder and no error.
func (l *ConsolidationLock) Holder() (LockHolder, error) {
	f, err := os.Open(l.path)
	if errors.Is(err, fs.ErrNotExist) {
		return LockHolder{}, nil
	}
	if err != nil {
		return LockHolder{}, fmt.Errorf("read consolidation lock: %w", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return LockHolder{}, fmt.Errorf("read consolidation lock: %w", err)
	}
	raw, err := io.ReadAll(io.LimitReader(f, 64))
	if err != nil {
		return LockHolder{}, fmt.Errorf("read consolidation lock: %w", err)
	}
	h := LockHolder{PID: parsePID(raw), Since: info.ModTime()}
	h.Live = l.heldByOther(h.PID, h.Since)
	return h, nil
}

// TryAcquire takes the lock unless a live process (this one included: a
// holder with our PID may be another gate of this process) took it less than
// an hour ago. ok is false when the lock is held (or another
// process won a race for it). On success prior is the file's previous
// modification time, zero when it did not exist; pass it to Rollback if the
// consolidation fails. The auto memory folder is created when missing.
func (l *ConsolidationLock) TryAcquire() (prior time.Time, ok bool, err error) {
	if err := os.MkdirAll(filepath.Dir(l.path), 0o700); err != nil {
		return time.Time{}, false, fmt.Errorf("acquire consolidation lock: %w", err)
	}
	for range 5 {
		created, err := l.createWithPID()
		if err != nil {
			return time.Time{}, false, fmt.Errorf("acquire consolidation lock: %w", err)
		}
		if created {
			return time.Time{}, l.readBack(), nil
		}
		prior, ok, retry, err := l.takeExisting()
		if err != nil {
			return time.Time{}, false, fmt.Errorf("acquire consolidation lock: %w", err)
		}
		if !retry {
			return prior, ok && l.readBack(), nil
		}
	}
	return time.Time{}, false, nil
}

// createWithPID creates the lock file holding our PID in one atomic step.
// created is false when the file already exists.
func (l *ConsolidationLock) createWithPID() (created bool, err error) {
	err = atomicfile.Create(l.path, 0o600, atomicfile.Bytes([]byte(strconv.Itoa(l.pid))))
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, fs.ErrExist):
		return false, nil
	}
	return false, err
}

// takeExisting inspects and, when free, takes an existing lock file under an
// OS file lock. retry is true when the file vanished or was replaced
// meanwhile.
func (l *ConsolidationLock) takeExisting() (prior time.Time, ok, retry bool, err error) {
	f, err := os.OpenFile(l.path, os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return time.Time{}, false, true, nil
	}
	if err != nil {
		return time.Time{}, false, false, err
	}
	defer f.Close()
	if err := filelock.Wait(f); err != nil {
		return time.Time{}, false, false, err
	}
	defer filelock.Unlock(f)
	info, err := f.Stat()
	if err != nil {
		return time.Time{}, false, false, err
	}
	if cur, err := os.Stat(l.path); err != nil || !os.SameFile(info, cur) {
		return time.Time{}, false, true, nil
	}
	raw, err := io.ReadAll(f)
	if err != nil {
		return time.Time{}, false, false, err
	}
	if l.heldByOther(parsePID(raw), info.ModTime()) {
		return time.Time{}, false, false, nil
	}
	return info.ModTime(), true, false, writePID(f, l.pid)
}

// heldByOther reports whether a holder recorded at mtime still holds the lock.
// Our own PID counts as a holder too: another lock value of this process, or
// a process in another container sharing the folder with the same PID (both
// PID 1), must not take it alongside.
func (l *ConsolidationLock) heldByOther(holder int, mtime time.Time) bool {
	if holder <= 0 {
		return false
	}
	return l.now().Sub(mtime) < holderStaleAfter && l.alive(holder)
}

// writePID replaces the file's content with pid and flushes it.
func writePID(f *os.File, pid int) error {
	if err := f.Truncate(0); err != nil {
		return err
	}
	if _, err := f.WriteAt([]byte(strconv.Itoa(pid)), 0); err != nil {
		return err
	}
	return f.Sync()
}

// readBack reports whether the lock file names us.
func (l *ConsolidationLock) readBack() bool {
	raw, err := os.ReadFile(l.path)
	return err == nil && parsePID(raw) == l.pid
}

// parsePID reads a process id; 0 when there is none.
func parsePID(raw []byte) int {
	pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil || pid < 0 {
		return 0
	}
	return pid
}

// Rollback undoes a successful TryAcquire after a failed consolidation: with
// a zero prior the file is removed (never consolidated); otherwise it is
// emptied (so our id no longer claims it) and its modification time set
// back to prior.
func (l *ConsolidationLock) Rollback(prior time.Time) error {
	if prior.IsZero() {
		if err := os.Remove(l.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("roll back consolidation lock: %w", err)
		}
		return nil
	}
	if err := os.WriteFile(l.path, nil, 0o600); err != nil {
		return fmt.Errorf("roll back consolidation lock: %w", err)
	}
	if err := os.Chtimes(l.path, prior, prior); err != nil {
		return fmt.Errorf("roll back consolidation lock: %w", err)
	}
	return nil
}
