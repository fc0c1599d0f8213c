package server

import (
	"context"
	"fmt"
	"time"
)

// Upkeep: each repository's settings of its health check and daily
// tidy, and when each key was last read where the server sees reads (a
// read_memory, a search hit, a page of the web UI: Service.Revision and
// Service.Search), so the check can tell topics nobody uses.

// MaxUnusedDays bounds UpkeepSettings.UnusedDays.
const MaxUnusedDays = 3650

// UpkeepSettings are one repository's upkeep settings; the zero value
// is the default (the unused check off, no daily tidy).
type UpkeepSettings struct {
	// UnusedDays > 0 reports topics neither read nor changed for that
	// many days.
	UnusedDays int
	// DailyTidy proposes a tidy of the repository once a day.
	DailyTidy bool
}

// Check refuses settings out of range.
func (s UpkeepSettings) Check() error {
	if s.UnusedDays < 0 || s.UnusedDays > MaxUnusedDays {
		return InvalidParameter("unused days %d is not 0 (off) to %d", s.UnusedDays, MaxUnusedDays)
	}
	return nil
}

// UpkeepStore keeps the upkeep settings and the reads. The SQL stores
// implement it; every method is safe for concurrent use, on every
// replica of a shared database.
type UpkeepStore interface {
	// RecordReads stamps each of keys of repo as read at at (a later
	// stamp of a key replaces an earlier one, never the other way).
	RecordReads(ctx context.Context, repo string, keys []string, at time.Time) error
	// LastReads returns when each key of repo was last read, and since
	// when the store keeps reads.
	LastReads(ctx context.Context, repo string) (map[string]time.Time, time.Time, error)
	// UpkeepSettings returns repo's settings (the zero value when none
	// were set).
	UpkeepSettings(ctx context.Context, repo string) (UpkeepSettings, error)
	// SetUpkeepSettings sets repo's settings (checked with Check).
	SetUpkeepSettings(ctx context.Context, repo string, s UpkeepSettings) error
	// DailyTidyRepos returns the repositories whose DailyTidy is set,
	// sorted.
	DailyTidyRepos(ctx context.Context) ([]string, error)
	// ClaimDailyTidy claims repo's daily tidy at at: true for the one
	// caller, of every replica, that claims it first when no claim was
	// made in the every before at.
	ClaimDailyTidy(ctx context.Context, repo string, at time.Time, every time.Duration) (bool, error)
}

// ReadNoter is told of the keys a caller read (Config.Reads).
type ReadNoter interface {
	// NoteRead notes that keys of repo were read; it must not block.
	NoteRead(repo string, keys []string)
}

// noteRead tells the configured ReadNoter of a read.
func (s *Service) noteRead(repo string, keys ...string) {
	if s.cfg.Reads != nil && len(keys) > 0 {
		s.cfg.Reads.NoteRead(repo, keys)
	}
}

// SetUpkeep sets repo's upkeep settings, for p (an admin grant). Errors:
// an invalid repo or settings, ErrForbidden, ErrNotImplemented when the
// store keeps none, the store's.
func (s *Service) SetUpkeep(ctx context.Context, p Principal, repo string, st UpkeepSettings) error {
	canon, err := s.authorize(p, repo, PermAdmin)
	if err != nil {
		return err
	}
	if err := st.Check(); err != nil {
		return err
	}
	us, ok := s.store.(UpkeepStore)
	if !ok {
		return fmt.Errorf("this store keeps no upkeep settings: %w", ErrNotImplemented)
	}
	return us.SetUpkeepSettings(ctx, canon, st)
}
