//go:build !windows

package agent

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// LockDir returns the machine-wide folder of this user's agent locks:
// /tmp/teammem-<uid>. It depends on no environment variable (not HOME,
// XDG_*, TMPDIR or --state-dir), so every agent of one user on one machine
// finds the same locks.
func LockDir() (string, error) {
	if lockDirOverride != "" {
		return lockDirOverride, nil
	}
	return filepath.Join("/tmp", "teammem-"+strconv.Itoa(os.Getuid())), nil
}

// ensureLockDir creates the lock folder (mode 0700) and refuses one that
// another user could have planted: it must be a real folder owned by us
// and closed to others.
func ensureLockDir(dir string) error {
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("create the lock folder: %w", err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("check the lock folder: %w", err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !fi.IsDir():
		return fmt.Errorf("the lock folder %s is not a folder", dir)
	case ok && int(st.Uid) != os.Getuid():
		return fmt.Errorf("the lock folder %s belongs to uid %d, not to you", dir, st.Uid)
	case fi.Mode().Perm()&0o077 != 0:
		return fmt.Errorf("the lock folder %s is open to other users (mode %v); make it 0700", dir, fi.Mode().Perm())
	}
	return nil
}
