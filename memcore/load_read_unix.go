//go:build unix

package memcore

import (
	"io/fs"
	"sync"
	"syscall"
)

// readBufPool holds read buffers; most instruction files fit one.
var readBufPool = sync.Pool{New: func() any { b := make([]byte, 64<<10); return &b }}

// readFileText reads a whole file with plain open/read/close system calls,
// skipping the stat and poller registration os.ReadFile does per file,
// which dominate loading hundreds of small files. Errors are
// *fs.PathError wrapping the errno, as from os.ReadFile. With noFollow, a
// symlink as the last component fails with errSymlink.
func readFileText(path string, noFollow bool) (string, error) {
	flags := syscall.O_RDONLY | syscall.O_CLOEXEC
	if noFollow {
		flags |= syscall.O_NOFOLLOW
	}
	fd, err := openRetry(path, flags)
	if noFollow && (err == syscall.ELOOP || err == syscall.EMLINK) {
		return "", &fs.PathError{Op: "open", Path: path, Err: errSymlink}
	}
	if err != nil {
		return "", &fs.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.Close(fd)
	bp := readBufPool.Get().(*[]byte)
	defer readBufPool.Put(bp)
	buf, n := *bp, 0
	for {
		if n == len(buf) {
			buf = append(buf, make([]byte, len(buf))...)
		}
		m, err := syscall.Read(fd, buf[n:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return "", &fs.PathError{Op: "read", Path: path, Err: err}
		}
		if m == 0 {
			break
		}
		n += m
	}
	if len(buf) > len(*bp) && len(buf) <= 1<<20 {
		*bp = buf
	}
	return string(buf[:n]), nil
}

// openRetry opens path with flags, retrying on EINTR.
func openRetry(path string, flags int) (int, error) {
	for {
		fd, err := syscall.Open(path, flags, 0)
		if err != syscall.EINTR {
			return fd, err
		}
	}
}
