package server

import (
	"context"
	"time"
)

// VersionActivity is what one version of a repository changed.
type VersionActivity struct {
	Version int64
	At      time.Time
	Author  string
	// Provenance is the version's (UnknownProvenance for a version
	// written before it was recorded).
	Provenance Provenance
	Changed    []string // keys put, sorted
	Deleted    []string // keys tombstoned, sorted
}

// ActivityPage is one page of a repository's activity, newest first.
type ActivityPage struct {
	Items []VersionActivity
	Next  int64 // before for the next page; 0: none
}

// Page starts a page from the versions a store found, newest first, when
// it asked for limit+1 of them: it keeps limit and sets Next when there
// were more. It returns the versions kept.
func (p *ActivityPage) Page(versions []int64, limit int) []int64 {
	p.Items = []VersionActivity{}
	if len(versions) > limit {
		versions = versions[:limit]
		p.Next = versions[limit-1]
	}
	return versions
}

// Add appends one revision to the page: to the last item when it has the
// same version, else as a new item. Stores call it with revisions sorted
// by version, newest first, then by key.
func (p *ActivityPage) Add(r Revision) {
	if n := len(p.Items); n == 0 || p.Items[n-1].Version != r.Version {
		p.Items = append(p.Items, VersionActivity{Version: r.Version, At: r.At, Author: r.Author,
			Provenance: r.Provenance, Changed: []string{}, Deleted: []string{}})
	}
	it := &p.Items[len(p.Items)-1]
	if r.Op == OpDelete {
		it.Deleted = append(it.Deleted, r.Key)
	} else {
		it.Changed = append(it.Changed, r.Key)
	}
}

// Default and largest page sizes of Activity.
const (
	DefaultActivityLimit = 50
	MaxActivityLimit     = 500
)

// Activity returns a page of a repository's versions, newest first, each
// with the keys it changed and deleted. A limit outside 1..MaxActivityLimit
// means the default (0) or the maximum. Errors: invalid repo, ErrForbidden,
// an invalid before, ErrNotFound when the repository never held data.
func (s *Service) Activity(ctx context.Context, p Principal, repo string, before int64, limit int) (ActivityPage, error) {
	canon, err := s.authorize(p, repo, PermRead)
	if err != nil {
		return ActivityPage{}, err
	}
	if before < 0 {
		return ActivityPage{}, invalidf(ReasonInvalidParameter, "before must be a non-negative version number")
	}
	switch {
	case limit <= 0:
		limit = DefaultActivityLimit
	case limit > MaxActivityLimit:
		limit = MaxActivityLimit
	}
	return s.store.Activity(ctx, canon, before, limit)
}
