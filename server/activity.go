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
	// Restores maps each changed key that got back an earlier version's
	// content to that version (see deriveRestores); nil when none did.
	// Filled by Service.Activity.
	Restores map[string]int64
}

// ActivityPage is one page of a repository's activity, newest first.
type ActivityPage struct {
	Items []VersionActivity
	Next  int64 // before for the next page; 0: none
	// Revisions are the revisions the page's versions hold, as the store
	// read them (Repo and Content not filled), newest first: the Service
	// tells the page's restores from them and the keys' older revisions.
	Revisions []Revision
}

// Page starts a page from the versions a store found, newest first, when
// it asked for limit+1 of them: it keeps limit and sets Next when there
// were more. It returns the versions kept.
func (p *ActivityPage) Page(versions []int64, limit int) []int64 {
	p.Items, p.Revisions = []VersionActivity{}, nil
	if len(versions) > limit {
		versions = versions[:limit]
		p.Next = versions[limit-1]
	}
	return versions
}

// Add appends one revision to the page: to the last item when it has the
// same version, else as a new item, and to Revisions. Stores call it with
// revisions sorted by version, newest first, then by key, their Key,
// Version, Op, Checksum, Author and At filled.
func (p *ActivityPage) Add(r Revision) {
	p.Revisions = append(p.Revisions, r)
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
// means the default (0) or the maximum. Each version says which changed
// keys restored an earlier version. Errors: invalid repo, ErrForbidden,
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
	page, err := s.store.Activity(ctx, canon, before, limit)
	if err != nil {
		return ActivityPage{}, err
	}
	if err := s.markActivityRestores(ctx, canon, &page); err != nil {
		return ActivityPage{}, err
	}
	return page, nil
}
