//go:build !windows

package memcore

import (
	"fmt"
	"os"
	"path/filepath"
)

// syncDir flushes the folder dir inside root to stable storage, so that a
// rename or removal in it survives a crash.
func syncDir(root *os.Root, dir string) error {
	d, err := root.Open(filepath.FromSlash(dir))
	if err != nil {
		return rootError("sync folder", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync folder %q: %w", dir, err)
	}
	return nil
}
