//go:build !unix

package agent

import "errors"

// mkfifo: named pipes in the file system are a Unix thing.
func mkfifo(string) error { return errors.ErrUnsupported }
