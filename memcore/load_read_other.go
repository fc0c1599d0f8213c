//go:build !unix

package memcore

import (
	"io/fs"
	"os"
)

// readFileText reads a whole file. With noFollow, a symlink as the last
// component fails with errSymlink.
func readFileText(path string, noFollow bool) (string, error) {
	if noFollow {
		if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return "", &fs.PathError{Op: "open", Path: path, Err: errSymlink}
		}
	}
	data, err := os.ReadFile(path)
	return string(data), err
}
