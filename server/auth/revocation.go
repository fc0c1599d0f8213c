package auth

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/teammem/teammem/server"
)

// DefaultRevocationRefresh is the default staleness bound of the
// revocation list a verification uses (VerifierOptions.RevocationRefresh,
// the server's --revocation-refresh): a revocation recorded in the
// database is honoured by every server on it within this long.
const DefaultRevocationRefresh = 5 * time.Second

// revocationLoadTimeout bounds one load of the revocation list, so that a
// verification never waits on a store that stopped answering longer than
// this (it then fails as unavailable, a 503) whatever its caller's
// context.
const revocationLoadTimeout = 5 * time.Second

// errRevoked is the reason given for a revoked token (and logged on the
// server's 401 line).
const errRevoked = "the token has been revoked; ask an admin for a new one"

// revocationSet is one load of the recorded revocations.
type revocationSet struct {
	loaded   time.Time // when the load began: the set holds every revocation recorded before it
	ids      map[string]struct{}
	subjects map[string]time.Time // subject → its tokens issued before this are revoked
}

// revoked reports whether the token t is withdrawn by the set: by its id
// (jti), or by its subject and issue time. A token without iat counts as
// issued before any subject revocation.
func (s *revocationSet) revoked(t verified) bool {
	if _, ok := s.ids[t.id]; ok && t.id != "" {
		return true
	}
	before, ok := s.subjects[t.p.Subject]
	return ok && (t.issuedAt.IsZero() || t.issuedAt.Before(before))
}

// revocations caches the store's revocation list: a verification costs
// no query unless the list is older than refresh, and then one load
// serves every verification waiting for it. A failed load is not cached:
// the verification fails with server.ErrUnavailable (a 503), since
// accepting a token that may be revoked is not a safe fallback.
type revocations struct {
	src     server.RevocationReader
	refresh time.Duration
	now     func() time.Time
	cur     atomic.Pointer[revocationSet]
	loading chan struct{} // a one-slot semaphore: one load at a time
	timeout time.Duration // of one load
}

func newRevocations(src server.RevocationReader, refresh time.Duration, now func() time.Time) *revocations {
	if refresh <= 0 {
		refresh = DefaultRevocationRefresh
	}
	return &revocations{src: src, refresh: refresh, now: now, loading: make(chan struct{}, 1), timeout: revocationLoadTimeout}
}

// check returns an authentication error when the token t is revoked.
func (r *revocations) check(ctx context.Context, t verified) error {
	set, err := r.current(ctx)
	if err != nil {
		return err
	}
	if set.revoked(t) {
		return &AuthError{Reason: errRevoked, Subject: t.p.Subject}
	}
	return nil
}

// current returns a set loaded less than refresh ago, loading one when
// needed.
func (r *revocations) current(ctx context.Context) (*revocationSet, error) {
	if s := r.cur.Load(); s != nil && r.fresh(s) {
		return s, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, checkFailed(err)
	}
	select {
	case r.loading <- struct{}{}:
	case <-ctx.Done():
		return nil, checkFailed(ctx.Err())
	}
	defer func() { <-r.loading }()
	if s := r.cur.Load(); s != nil && r.fresh(s) { // loaded while this one waited
		return s, nil
	}
	began := r.now()
	lctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	list, err := r.src.Revocations(lctx)
	if err != nil {
		return nil, checkFailed(err)
	}
	s := &revocationSet{loaded: began, ids: map[string]struct{}{}, subjects: map[string]time.Time{}}
	for _, rv := range list {
		if rv.TokenID != "" {
			s.ids[rv.TokenID] = struct{}{}
		} else if b, ok := s.subjects[rv.Subject]; !ok || rv.Before.After(b) {
			s.subjects[rv.Subject] = rv.Before
		}
	}
	r.cur.Store(s)
	return s, nil
}

func (r *revocations) fresh(s *revocationSet) bool {
	age := r.now().Sub(s.loaded)
	return age >= 0 && age < r.refresh
}

// checkFailed marks a failed revocation check as the store being
// unavailable (503 with Retry-After), keeping cancellation as it is.
func checkFailed(err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, server.ErrUnavailable) {
		return fmt.Errorf("check token revocations: %w", err)
	}
	return fmt.Errorf("check token revocations: %w: %w", server.ErrUnavailable, err)
}
