//go:build linux || darwin

package agent

import (
	"io/fs"
	"syscall"
)

// sysIdentity returns the inode and change time of a file.
func sysIdentity(fi fs.FileInfo) (uint64, int64) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0
	}
	return st.Ino, changeTime(st)
}
