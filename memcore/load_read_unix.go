//go:build unix

package memcore

import (
	"bytes"
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
	// O_NONBLOCK: a FIFO or terminal must not hang the load.
	flags := syscall.O_RDONLY | syscall.O_CLOEXEC | syscall.O_NONBLOCK
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
	buf, n, err := readAll(fd, *bp)
	if len(buf) > len(*bp) && len(buf) <= 1<<20 {
		*bp = buf
	}
	if err != nil {
		return "", &fs.PathError{Op: "read", Path: path, Err: err}
	}
	return string(buf[:n]), nil
}

// readAll reads fd to its end into buf (grown as needed), failing past
// maxFileBytes, at the first NUL byte and on a device or pipe that has no
// data yet.
func readAll(fd int, buf []byte) ([]byte, int, error) {
	n := 0
	for {
		if n == len(buf) {
			if n >= maxFileBytes {
				return buf, n, errTooLarge
			}
			buf = append(buf, make([]byte, len(buf))...)
		}
		m, err := syscall.Read(fd, buf[n:])
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.EAGAIN:
			return buf, n, errNotRegular
		case err != nil:
			return buf, n, err
		case m == 0:
			return buf, n, nil
		case bytes.IndexByte(buf[n:n+m], 0) >= 0:
			return buf, n, errBinary // stop early: /dev/zero is endless
		}
		n += m
	}
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
