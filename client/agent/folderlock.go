package agent

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/teammem/teammem/internal/filelock"
)

// ErrFolderLocked is wrapped by LockFolder's error when another agent
// holds the team folder.
var ErrFolderLocked = errors.New("another teammem-agent is running on this folder")

// FolderLock is the single-agent lock of one team folder (spec/agent.md
// §1): an OS file lock on a file named for the folder's resolved path in
// one machine-wide place per user (LockDir), whatever state directory the
// agent uses. The OS drops it when the agent dies.
type FolderLock struct {
	l    *filelock.Lock
	path string
}

// lockDirOverride, when set by a test, replaces LockDir's answer.
var lockDirOverride string

// FolderLockPath returns the lock file of the team folder dir:
// LockDir()/"folder-<first 32 hex digits of SHA-256(ResolveFolder(dir))>.lock",
// so that one folder reached by several paths (symlinks) has one lock.
func FolderLockPath(dir string) (string, error) {
	ld, err := LockDir()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(ResolveFolder(dir)))
	return filepath.Join(ld, "folder-"+hex.EncodeToString(sum[:16])+".lock"), nil
}

// LockFolder takes the lock of the team folder dir without waiting and
// records this process's id in it. When another agent holds it, the error
// wraps ErrFolderLocked and names that agent's pid and the folder.
func LockFolder(dir string) (*FolderLock, error) {
	path, err := FolderLockPath(dir)
	if err != nil {
		return nil, err
	}
	if err := ensureLockDir(filepath.Dir(path)); err != nil {
		return nil, err
	}
	l, err := filelock.TryLock(path)
	switch {
	case errors.Is(err, filelock.ErrLocked):
		holder := "another process"
		if pid := FolderHolder(dir); pid > 0 {
			holder = fmt.Sprintf("pid %d", pid)
		}
		return nil, fmt.Errorf("%w: %s holds %s; stop it first (lock file %s)", ErrFolderLocked, holder, ResolveFolder(dir), path)
	case err != nil:
		return nil, fmt.Errorf("lock the team folder: %w", err)
	}
	_ = l.WritePID() // informative only: the OS lock is what excludes
	return &FolderLock{l: l, path: path}, nil
}

// FolderLocked reports whether an agent holds the lock of the team folder
// dir. It never creates the lock folder or file.
func FolderLocked(dir string) bool {
	path, err := FolderLockPath(dir)
	return err == nil && filelock.Held(path)
}

// FolderHolder returns the pid recorded by the agent holding the lock of
// the team folder dir, 0 when none is recorded.
func FolderHolder(dir string) int {
	path, err := FolderLockPath(dir)
	if err != nil {
		return 0
	}
	return filelock.HolderPID(path)
}

// Path returns the lock file.
func (f *FolderLock) Path() string { return f.path }

// Release drops the lock; releasing a nil lock does nothing.
func (f *FolderLock) Release() error {
	if f == nil {
		return nil
	}
	return f.l.Release()
}
