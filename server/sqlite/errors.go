package sqlite

import (
	"context"
	"errors"
	"fmt"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/teammem/teammem/server"
)

// wrap prefixes err with what failed; a database that stays locked past
// the busy timeout is reported as server.ErrUnavailable. Context errors are
// kept as they are so callers can tell cancellation from failure.
func wrap(what string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%s: %w", what, err)
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_IOERR, sqlite3.SQLITE_FULL, sqlite3.SQLITE_CANTOPEN:
			return fmt.Errorf("%s: %w: %w", what, server.ErrUnavailable, err)
		}
	}
	return fmt.Errorf("%s: %w", what, err)
}
