package sqlite

import (
	"errors"
	"fmt"

	"github.com/gofrs/flock"
)

// ErrLocked is returned by Open and Migrate when another process (or
// another DB in this process) holds the database's lock file.
var ErrLocked = errors.New("database is locked by another process")

// lockFile takes the exclusive, non-blocking OS lock on path+".lock" that
// makes the embedded store single-process: the in-memory repository states
// are authoritative only because no one else writes the file. The OS
// releases the lock when the process dies.
func lockFile(path string) (*flock.Flock, error) {
	fl := flock.New(path+".lock", flock.SetPermissions(0o600))
	ok, err := fl.TryLock()
	if err != nil {
		return nil, fmt.Errorf("lock sqlite database %s: %w", path, err)
	}
	if !ok {
		return nil, fmt.Errorf("open sqlite database %s: another teammem-server is using it: %w", path, ErrLocked)
	}
	return fl, nil
}
