//go:build !windows

package atomicfile

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// syncDir flushes the folder dir inside root, so that a rename or removal
// in it survives a crash. File systems that cannot sync a folder (EINVAL,
// ENOTSUP) are not an error.
func syncDir(root *os.Root, dir string) error {
	d, err := root.Open(dir)
	if err != nil {
		return fmt.Errorf("sync folder %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.ENOTSUP) {
		return fmt.Errorf("sync folder %s: %w", dir, err)
	}
	return nil
}
