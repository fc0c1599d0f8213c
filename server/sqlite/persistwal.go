package sqlite

import (
	"fmt"

	"modernc.org/sqlite"
)

// persistWAL keeps the -wal and -shm files when the last connection closes
// (SQLITE_FCNTL_PERSIST_WAL; the WAL is still checkpointed and emptied).
// Without it SQLite deletes both, and reopening must grow a new -shm: on a
// full disk that fails (SQLITE_IOERR_SHMSIZE) and the server could not even
// start to serve reads.
func persistWAL(conn sqlite.ExecQuerierContext, _ string) error {
	fc, ok := conn.(interface {
		FileControlPersistWAL(dbName string, mode int) (int, error)
	})
	if !ok {
		return nil
	}
	if _, err := fc.FileControlPersistWAL("main", 1); err != nil {
		return fmt.Errorf("keep the sqlite WAL files: %w", err)
	}
	return nil
}

func init() { sqlite.RegisterConnectionHook(persistWAL) }
