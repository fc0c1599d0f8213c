package storetest

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/teammem/teammem/server"
)

// SignInOAuthStore is a store of sign-ins and OAuth sessions.
type SignInOAuthStore interface {
	server.SignInStore
	server.OAuthStore
}

// SignIns checks a store's sign-ins with the identity provider through
// two handles on it (a and b: the same store, or two replicas on one
// database): a sign-in round-trips; an update is written unless it fails;
// updates of one sign-in never overlap, whichever replica runs them; an
// ended sign-in is gone and the OAuth sessions consented from it are
// revoked (their ids returned); a signed-out sign-in is kept while an
// OAuth session of it lives and forgotten otherwise; an unused refresh
// token reads its session without using it.
func SignIns(t *testing.T, a, b SignInOAuthStore) {
	ctx := context.Background()
	now := t0.Truncate(time.Microsecond)
	si := server.SignIn{ID: strings.Repeat("a1", 12), Subject: "ann@acme.example", Grants: []string{"acme/*:write"},
		Sealed: []byte{1, 2, 3}, CheckedAt: now, WebExpires: now.Add(12 * time.Hour), CreatedAt: now}
	if err := a.StartSignIn(ctx, server.SignIn{ID: "nope", Subject: "ann", CreatedAt: now}); !errors.Is(err, server.ErrInvalid) {
		t.Errorf("a sign-in with a bad id: %v; want ErrInvalid", err)
	}
	if err := a.StartSignIn(ctx, si); err != nil {
		t.Fatal(err)
	}
	if got, err := b.SignIn(ctx, si.ID); err != nil || !cmp.Equal(got, si) {
		t.Errorf("SignIn = %+v, %v; want %+v", got, err, si)
	}
	if _, err := b.SignIn(ctx, strings.Repeat("b", 24)); !errors.Is(err, server.ErrNotFound) {
		t.Errorf("an unknown sign-in: %v; want ErrNotFound", err)
	}

	// An OAuth session consented from the sign-in, its code exchanged.
	sess := server.OAuthSession{ID: strings.Repeat("5", 24), Subject: si.Subject, Grants: si.Grants,
		ClientID: "dcr_" + strings.Repeat("c", 32), ClientName: "Agent", RedirectURI: "http://127.0.0.1:9/cb", CodeChallenge: "chal",
		Resource: "https://mem.example", Parent: server.SignInCredential(si.ID), ParentExpires: now.Add(30 * 24 * time.Hour),
		CreatedAt: now, ExpiresAt: now.Add(30 * 24 * time.Hour), CodeExpires: now.Add(time.Minute)}
	if err := a.StartOAuthSession(ctx, sess, "code-s"); err != nil {
		t.Fatal(err)
	}
	if _, err := a.TakeCode(ctx, "code-s", "r1", now); err != nil {
		t.Fatal(err)
	}
	if got, err := b.RefreshSession(ctx, "r1", now); err != nil || got.ID != sess.ID || got.Parent != sess.Parent {
		t.Errorf("RefreshSession(r1) = %+v, %v", got, err)
	}
	if _, err := b.RotateRefresh(ctx, "r1", "r2", now); err != nil {
		t.Fatal(err)
	}
	if _, err := a.RefreshSession(ctx, "r1", now); !errors.Is(err, server.ErrNotFound) {
		t.Errorf("RefreshSession of a used token: %v; want ErrNotFound", err)
	}

	// Updates: written, or nothing written when the change fails.
	changed := si
	changed.Grants, changed.Sealed, changed.CheckedAt = []string{"acme/handbook:read"}, []byte{4, 5}, now.Add(time.Minute)
	if _, err := b.UpdateSignIn(ctx, si.ID, now, func(cur server.SignIn) (server.SignInChange, error) {
		if !cmp.Equal(cur, si) {
			t.Errorf("the change sees %+v; want %+v", cur, si)
		}
		return server.SignInChange{SignIn: changed}, nil
	}); err != nil {
		t.Fatal(err)
	}
	down := errors.New("the provider is down")
	if _, err := a.UpdateSignIn(ctx, si.ID, now, func(cur server.SignIn) (server.SignInChange, error) {
		cur.Grants = nil
		return server.SignInChange{SignIn: cur}, down
	}); !errors.Is(err, down) {
		t.Errorf("a failed change: %v; want its error", err)
	}
	if got, err := a.SignIn(ctx, si.ID); err != nil || !cmp.Equal(got, changed) {
		t.Errorf("after the updates: %+v, %v; want %+v", got, err, changed)
	}

	// Updates of one sign-in on both handles at once never overlap.
	var inside, overlaps atomic.Int32
	var wg sync.WaitGroup
	for _, s := range []SignInOAuthStore{a, b, a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := s.UpdateSignIn(ctx, si.ID, now, func(cur server.SignIn) (server.SignInChange, error) {
				if inside.Add(1) > 1 {
					overlaps.Add(1)
				}
				time.Sleep(20 * time.Millisecond)
				inside.Add(-1)
				return server.SignInChange{SignIn: cur}, nil
			})
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if n := overlaps.Load(); n > 0 {
		t.Errorf("%d updates of one sign-in overlapped", n)
	}

	// Signed out with a live OAuth session: kept; ended: gone, the session
	// revoked.
	if err := a.SignOutSignIn(ctx, si.ID, now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := b.SignIn(ctx, si.ID); err != nil {
		t.Errorf("a signed-out sign-in with a live OAuth session: %v; want it kept", err)
	}
	revoked, err := b.UpdateSignIn(ctx, si.ID, now.Add(time.Hour), func(cur server.SignIn) (server.SignInChange, error) {
		return server.SignInChange{SignIn: cur, Ended: "the identity provider refused the refresh"}, nil
	})
	if err != nil || !cmp.Equal(revoked, []string{sess.ID}) {
		t.Errorf("ending the sign-in: revoked %v, %v; want [%s]", revoked, err, sess.ID)
	}
	if _, err := a.SignIn(ctx, si.ID); !errors.Is(err, server.ErrNotFound) {
		t.Errorf("an ended sign-in: %v; want ErrNotFound", err)
	}
	if live, _ := a.OAuthSessions(ctx, si.Subject, now.Add(time.Hour)); len(live) != 0 {
		t.Errorf("sessions of an ended sign-in still live: %+v", live)
	}
	ended, err := a.EndedOAuthSessions(ctx, si.Subject, now)
	if err != nil || len(ended) != 1 || ended[0].ID != sess.ID || !ended[0].EndedAt.Equal(now.Add(time.Hour)) ||
		ended[0].EndedWhy != "the identity provider refused the refresh" {
		t.Errorf("EndedOAuthSessions = %+v, %v; want the session, ended an hour in, and why", ended, err)
	}
	if ended, _ := b.EndedOAuthSessions(ctx, si.Subject, now.Add(2*time.Hour)); len(ended) != 0 {
		t.Errorf("sessions ended before since: %+v", ended)
	}
	if _, err := a.UpdateSignIn(ctx, si.ID, now, func(cur server.SignIn) (server.SignInChange, error) {
		t.Error("a change ran on an ended sign-in")
		return server.SignInChange{SignIn: cur}, nil
	}); !errors.Is(err, server.ErrNotFound) {
		t.Errorf("updating an ended sign-in: %v; want ErrNotFound", err)
	}

	// Signed out with no OAuth session: forgotten.
	lone := si
	lone.ID = strings.Repeat("c2", 12)
	if err := a.StartSignIn(ctx, lone); err != nil {
		t.Fatal(err)
	}
	if err := b.SignOutSignIn(ctx, lone.ID, now.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if _, err := a.SignIn(ctx, lone.ID); !errors.Is(err, server.ErrNotFound) {
		t.Errorf("a signed-out sign-in with no OAuth session: %v; want it forgotten", err)
	}
}
