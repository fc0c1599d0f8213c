//go:build !unix

package memcore

import (
	"io/fs"
	"os"
)

// readFileText reads a whole regular file of at most maxFileBytes. With
// noFollow, a symlink as the last component fails with errSymlink.
func readFileText(path string, noFollow bool) (string, error) {
	if noFollow {
		if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return "", &fs.PathError{Op: "open", Path: path, Err: errSymlink}
		}
	}
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return "", err
	case fi.IsDir():
		return "", &fs.PathError{Op: "read", Path: path, Err: errIsDir}
	case !fi.Mode().IsRegular():
		return "", &fs.PathError{Op: "read", Path: path, Err: errNotRegular}
	case fi.Size() > maxFileBytes:
		return "", &fs.PathError{Op: "read", Path: path, Err: errTooLarge}
	}
	data, err := os.ReadFile(path)
	return string(data), err
}
