package server

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// AuditPageLimit bounds the entries one AuditEntries call returns
// (default DefaultAuditPage).
const (
	AuditPageLimit   = 1000
	DefaultAuditPage = 100
)

// AuditRead is a page of a repository's audit chain: its entries after
// number After, at or after Since, at most Limit of them.
type AuditRead struct {
	Since time.Time
	After int64
	Limit int
}

// errPageFull stops a read once the page is full.
var errPageFull = errors.New("page full")

// AuditEntries returns a page of repo's audit chain as p may read it: an
// admin of the repository reads every entry, anyone else who can read it
// only the entries of their own acts. Errors: invalid repo, ErrForbidden,
// a limit out of range (ErrInvalid), ErrUnavailable when the server keeps
// no audit log, the log's.
func (s *Service) AuditEntries(ctx context.Context, p Principal, repo string, r AuditRead) ([]AuditEntry, error) {
	canon, err := s.authorize(p, repo, PermRead)
	if err != nil {
		return nil, err
	}
	switch {
	case r.Limit == 0:
		r.Limit = DefaultAuditPage
	case r.Limit < 0 || r.Limit > AuditPageLimit:
		return nil, invalidf(ReasonInvalidParameter, "limit must be between 1 and %d", AuditPageLimit)
	}
	if r.After < 0 {
		return nil, invalidf(ReasonInvalidParameter, "after must be a non-negative entry number")
	}
	if s.cfg.Audit == nil {
		return nil, fmt.Errorf("read the audit log: %w", ErrUnavailable)
	}
	q := AuditQuery{Chain: canon, Since: r.Since, After: r.After}
	if p.Perm(canon) < PermAdmin {
		q.Subject = p.Subject
	}
	var out []AuditEntry
	err = s.cfg.Audit.AuditEntries(ctx, q, func(e AuditEntry) error {
		out = append(out, e)
		if len(out) == r.Limit {
			return errPageFull
		}
		return nil
	})
	if err != nil && !errors.Is(err, errPageFull) {
		return nil, err
	}
	return out, nil
}
