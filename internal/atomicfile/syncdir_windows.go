//go:build windows

package atomicfile

import "os"

// syncDir does nothing on Windows, which cannot fsync a folder; NTFS
// journals the rename itself.
func syncDir(root *os.Root, dir string) error { return nil }
