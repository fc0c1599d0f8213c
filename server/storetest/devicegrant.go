package storetest

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/teammem/teammem/server"
)

// DeviceGrant checks a store's device authorizations through two handles
// on it (the same store, or two replicas on one database): a pending one
// is found by its user code until decided or expired; a decision is taken
// once; polls too soon slow down and grow the interval; the approved
// authorization goes to one poll only, even when two race on two
// replicas; an expired one and an unknown device code are refused; a user
// code can be drawn again once its holder expired.
func DeviceGrant(t *testing.T, a, b server.DeviceStore) {
	ctx := context.Background()
	now := t0.Truncate(time.Microsecond)
	start := func(hash, code string, at time.Time) server.DeviceAuthorization {
		t.Helper()
		d := server.DeviceAuthorization{DeviceCodeHash: hash, UserCode: code, ClientID: "dcr_agent", ClientName: "Agent",
			Resource: "https://mem.example", CreatedAt: at, ExpiresAt: at.Add(10 * time.Minute), Interval: 5 * time.Second,
			State: server.DevicePending}
		if err := a.StartDeviceAuthorization(ctx, d); err != nil {
			t.Fatalf("StartDeviceAuthorization: %v", err)
		}
		return d
	}
	d := start("h1", "BCDFGHJK", now)
	if err := a.StartDeviceAuthorization(ctx, server.DeviceAuthorization{DeviceCodeHash: "h2", UserCode: "BCDFGHJK",
		CreatedAt: now, ExpiresAt: now.Add(time.Minute), Interval: time.Second}); err == nil {
		t.Error("a second live authorization took the same user code")
	}
	if got, err := b.PendingDevice(ctx, "BCDFGHJK", now.Add(time.Second)); err != nil || got != d {
		t.Errorf("PendingDevice = %+v, %v; want %+v", got, err, d)
	}
	if _, err := b.PendingDevice(ctx, "BCDFGHJL", now); !errors.Is(err, server.ErrNotFound) {
		t.Errorf("an unknown user code: %v; want ErrNotFound", err)
	}
	if _, err := b.PendingDevice(ctx, "BCDFGHJK", now.Add(10*time.Minute)); !errors.Is(err, server.ErrNotFound) {
		t.Errorf("an expired user code: %v; want ErrNotFound", err)
	}

	poll := func(s server.DeviceStore, hash string, at time.Duration) (server.DeviceAuthorization, error) {
		t.Helper()
		return s.PollDevice(ctx, hash, now.Add(at))
	}
	if got, err := poll(b, "h1", time.Second); err != nil || got.State != server.DevicePending {
		t.Errorf("first poll = %v, %v; want pending", got.State, err)
	}
	if _, err := poll(a, "h1", 3*time.Second); !errors.Is(err, server.ErrSlowDown) {
		t.Errorf("a poll 2 s after the last: %v; want ErrSlowDown", err)
	}
	if _, err := poll(b, "h1", 9*time.Second); !errors.Is(err, server.ErrSlowDown) {
		t.Errorf("a poll 6 s after the last, the interval grown to 10 s: %v; want ErrSlowDown", err)
	}
	if _, err := poll(b, "nope", 30*time.Second); !errors.Is(err, server.ErrNotFound) {
		t.Errorf("an unknown device code: %v; want ErrNotFound", err)
	}

	if err := a.DecideDevice(ctx, "BCDFGHJK", "codehash", now.Add(20*time.Second)); err != nil {
		t.Fatalf("DecideDevice: %v", err)
	}
	if err := b.DecideDevice(ctx, "BCDFGHJK", "", now.Add(21*time.Second)); !errors.Is(err, server.ErrNotFound) {
		t.Errorf("a second decision: %v; want ErrNotFound", err)
	}
	if _, err := b.PendingDevice(ctx, "BCDFGHJK", now.Add(21*time.Second)); !errors.Is(err, server.ErrNotFound) {
		t.Errorf("a decided user code is still pending: %v", err)
	}
	// Two polls race, one on each replica: one takes the approval.
	var wg sync.WaitGroup
	got := make([]server.DeviceAuthorization, 2)
	errs := make([]error, 2)
	for i, s := range []server.DeviceStore{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], errs[i] = s.PollDevice(ctx, "h1", now.Add(40*time.Second))
		}()
	}
	wg.Wait()
	won := 0
	for i := range 2 {
		switch {
		case errs[i] == nil && got[i].State == server.DeviceApproved && got[i].CodeHash == "codehash":
			won++
		case errors.Is(errs[i], server.ErrSlowDown), errors.Is(errs[i], server.ErrDeviceCodeReused):
		default:
			t.Errorf("racing poll %d = %+v, %v", i, got[i], errs[i])
		}
	}
	if won != 1 {
		t.Errorf("%d polls took the approval; want 1", won)
	}
	if _, err := poll(a, "h1", 2*time.Minute); !errors.Is(err, server.ErrDeviceCodeReused) {
		t.Errorf("a poll after the tokens were taken: %v; want ErrDeviceCodeReused", err)
	}

	denied := start("h3", "CDFGHJKL", now)
	if err := b.DecideDevice(ctx, denied.UserCode, "", now.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	if got, err := poll(a, "h3", 2*time.Second); err != nil || got.State != server.DeviceDenied {
		t.Errorf("poll of a denied authorization = %v, %v; want denied", got.State, err)
	}
	start("h4", "DFGHJKLM", now)
	if _, err := poll(b, "h4", 10*time.Minute); !errors.Is(err, server.ErrDeviceExpired) {
		t.Errorf("a poll at expiry: %v; want ErrDeviceExpired", err)
	}
	if err := a.DecideDevice(ctx, "DFGHJKLM", "x", now.Add(10*time.Minute)); !errors.Is(err, server.ErrNotFound) {
		t.Errorf("a decision at expiry: %v; want ErrNotFound", err)
	}
	// Once expired, its user code may be drawn again.
	start("h5", "DFGHJKLM", now.Add(11*time.Minute))
}
