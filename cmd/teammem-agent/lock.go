package main

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gofrs/flock"
	"github.com/teammem/teammem/client/agent"
)

// errLocked is wrapped by acquireLock's error when another agent holds the
// lock.
var errLocked = errors.New("another teammem-agent is running")

// agentLock is the single-writer lock of one team folder: an advisory lock
// (flock, LockFileEx on Windows) on a file in the state directory. The
// operating system releases it when the process dies, so a crash leaves no
// stale lock; the file holds the holder's pid for the error message only.
type agentLock struct {
	fl *flock.Flock
}

// lockPath returns the lock file of a team folder under stateDir:
// "lock-<first 32 hex digits of SHA-256(folder)>.lock", where folder is
// teamDir with its symbolic links resolved (agent.ResolveFolder), so that
// one folder reached by two paths has one lock. The lock lives in the state
// directory: two agents given different --state-dir are not kept apart.
func lockPath(stateDir, teamDir string) string {
	sum := sha256.Sum256([]byte(agent.ResolveFolder(teamDir)))
	return filepath.Join(stateDir, "lock-"+hex.EncodeToString(sum[:16])+".lock")
}

// acquireLock takes the lock at path without waiting. When another process
// holds it, the error wraps errLocked and names that process and what.
func acquireLock(path, what string) (*agentLock, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("create state folder: %w", err)
	}
	fl := flock.New(path, flock.SetPermissions(0o600))
	ok, err := fl.TryLock()
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if !ok {
		return nil, fmt.Errorf("%w%s for %s; stop it first (lock file %s)", errLocked, holder(path), what, path)
	}
	// The pid is informative; a failure to record it does not matter.
	_ = os.WriteFile(path, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o600)
	return &agentLock{fl: fl}, nil
}

// holder describes the pid recorded in a lock file, if it can be read.
func holder(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	if pid, err := strconv.Atoi(strings.TrimSpace(string(data))); err == nil && pid > 0 {
		return fmt.Sprintf(" (pid %d)", pid)
	}
	return ""
}

// Release drops the lock; the file stays for the next holder.
func (l *agentLock) Release() error {
	if l == nil {
		return nil
	}
	return l.fl.Unlock()
}

// lockSet holds several locks, taken in order and released together.
type lockSet []*agentLock

// acquireLocks takes every (path, what) pair in order; on failure it
// releases what it took.
func acquireLocks(pairs ...[2]string) (lockSet, error) {
	var set lockSet
	for _, p := range pairs {
		l, err := acquireLock(p[0], p[1])
		if err != nil {
			set.Release()
			return nil, err
		}
		set = append(set, l)
	}
	return set, nil
}

// Release drops every lock of the set.
func (s lockSet) Release() {
	for i := len(s) - 1; i >= 0; i-- {
		s[i].Release()
	}
}
