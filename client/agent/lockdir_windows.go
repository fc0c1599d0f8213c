//go:build windows

package agent

import (
	"fmt"
	"os"
	"path/filepath"
)

// LockDir returns the machine-wide folder of this user's agent locks:
// %LocalAppData%\teammem\locks (the user's local profile), whatever
// --state-dir says.
func LockDir() (string, error) {
	if lockDirOverride != "" {
		return lockDirOverride, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("find the lock folder: %w", err)
	}
	return filepath.Join(d, "teammem", "locks"), nil
}

// ensureLockDir creates the lock folder.
func ensureLockDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create the lock folder: %w", err)
	}
	return nil
}
