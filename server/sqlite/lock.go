package sqlite

import (
	"errors"
	"fmt"

	"github.com/teammem/teammem/internal/filelock"
)

// ErrLocked is returned by Open and Migrate when another process (or
// another DB in this process) holds the database's lock file.
var ErrLocked = errors.New("database is locked by another process")

// lockFile takes the exclusive, non-blocking OS lock on path+".lock" that
// makes the embedded store single-process: the in-memory repository states
// are authoritative only because no one else writes the file. The OS
// releases the lock when the process dies.
func lockFile(path string) (*filelock.Lock, error) {
	l, err := filelock.TryLock(path + ".lock")
	switch {
	case errors.Is(err, filelock.ErrLocked):
		return nil, fmt.Errorf("open sqlite database %s: another teammem-server is using it: %w", path, ErrLocked)
	case err != nil:
		return nil, fmt.Errorf("lock sqlite database %s: %w", path, err)
	}
	return l, nil
}
