// Package server is the domain of teammem-server: the Service that makes the
// auth decisions, applies limits and validation, and the Store interface its
// storage implements. It imports memcore/protocol for key validation and
// checksums and memcore/secrets for the secret scanner, and never the wire
// format or a database driver.
package server

import (
	"errors"
	"fmt"
)

// Sentinel errors of the domain. The HTTP layer maps each to one status.
var (
	ErrNotFound           = errors.New("not found")
	ErrPreconditionFailed = errors.New("precondition failed")
	ErrTooManyEntries     = errors.New("too many entries")
	ErrRepoTooLarge       = errors.New("repository too large")
	ErrKeyCollision       = errors.New("key collision")
	ErrSinceTooOld        = errors.New("since version too old")
	ErrInvalid            = errors.New("invalid request")
	ErrUnauthenticated    = errors.New("unauthenticated")
	ErrForbidden          = errors.New("forbidden")
	ErrUnavailable        = errors.New("store unavailable")
)

// PreconditionError is returned when If-Match does not match.
type PreconditionError struct {
	Checksum string // the current checksum ("" when the repo was never written)
}

func (e *PreconditionError) Error() string {
	return fmt.Sprintf("precondition failed: current checksum is %q", e.Checksum)
}

// Unwrap makes errors.Is(err, ErrPreconditionFailed) hold.
func (e *PreconditionError) Unwrap() error { return ErrPreconditionFailed }

// TooManyEntriesError is returned when a write would leave more live entries
// than allowed.
type TooManyEntriesError struct {
	Max      int
	Received int // the live count the write would produce
}

func (e *TooManyEntriesError) Error() string {
	return fmt.Sprintf("too many entries: the write would leave %d live entries, the limit is %d", e.Received, e.Max)
}

// Unwrap makes errors.Is(err, ErrTooManyEntries) hold.
func (e *TooManyEntriesError) Unwrap() error { return ErrTooManyEntries }

// RepoTooLargeError is returned when a write would leave a repository
// larger than its byte limit.
type RepoTooLargeError struct {
	Max   int64 // the limit
	Bytes int64 // the live bytes the write would leave
}

func (e *RepoTooLargeError) Error() string {
	return fmt.Sprintf("repository too large: the write would leave %d bytes, the limit is %d", e.Bytes, e.Max)
}

// Unwrap makes errors.Is(err, ErrRepoTooLarge) hold.
func (e *RepoTooLargeError) Unwrap() error { return ErrRepoTooLarge }

// KeyCollisionError describes a new key that equals an existing live key
// after case folding. Writes leave such a key out (WriteResult.Skipped);
// the type remains for callers that refuse it outright.
type KeyCollisionError struct {
	Key      string // the new key
	Existing string // the live key it collides with
}

func (e *KeyCollisionError) Error() string {
	return fmt.Sprintf("key %q collides with existing key %q (they differ only in case)", e.Key, e.Existing)
}

// Unwrap makes errors.Is(err, ErrKeyCollision) hold.
func (e *KeyCollisionError) Unwrap() error { return ErrKeyCollision }

// ErrNotImplemented is returned by a feature this server is built or
// configured without; the error's text says which.
var ErrNotImplemented = errors.New("not implemented")
