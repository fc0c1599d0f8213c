package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/teammem/teammem/server"
)

// TokenRecords checks a store's records of issued tokens: recorded and read
// back oldest first with their grants, an id recorded twice kept once (the
// first record), and malformed records refused without a trace.
func TokenRecords(t *testing.T, s server.TokenRegistry) {
	ctx := context.Background()
	if got, err := s.IssuedTokens(ctx); err != nil || len(got) != 0 {
		t.Fatalf("IssuedTokens on a new store = %v, %v; want none", got, err)
	}
	at := t0.Truncate(time.Microsecond)
	a := server.IssuedToken{ID: "0123456789abcdef01234567", Subject: "ci-acme", Grants: []string{"acme/*:write", "acme/docs:read"}, IssuedAt: at.Add(time.Minute), ExpiresAt: at.Add(time.Hour)}
	b := server.IssuedToken{ID: "fedcba9876543210fedcba98", Subject: "ånä", Grants: []string{"**:admin"}, IssuedAt: at, ExpiresAt: at.Add(24 * time.Hour)}
	for _, r := range []server.IssuedToken{a, b} {
		if err := s.RecordToken(ctx, r); err != nil {
			t.Fatalf("RecordToken(%+v): %v", r, err)
		}
	}
	again := a
	again.Subject = "someone-else"
	if err := s.RecordToken(ctx, again); err != nil {
		t.Fatalf("RecordToken of a recorded id: %v", err)
	}
	for _, bad := range []server.IssuedToken{
		{ID: "0123", Subject: "x", Grants: []string{"a:read"}, IssuedAt: at, ExpiresAt: at.Add(time.Hour)},
		{ID: "0123456789ABCDEF01234567", Subject: "x", Grants: []string{"a:read"}, IssuedAt: at, ExpiresAt: at.Add(time.Hour)},
		{ID: "00000000000000000000000a", Subject: "", Grants: []string{"a:read"}, IssuedAt: at, ExpiresAt: at.Add(time.Hour)},
		{ID: "00000000000000000000000b", Subject: "x\ny", Grants: []string{"a:read"}, IssuedAt: at, ExpiresAt: at.Add(time.Hour)},
		{ID: "00000000000000000000000c", Subject: "x", Grants: []string{"a:read"}, IssuedAt: at, ExpiresAt: at},
	} {
		if err := s.RecordToken(ctx, bad); err == nil {
			t.Errorf("RecordToken(%+v) succeeded; want an error", bad)
		}
	}
	got, err := s.IssuedTokens(ctx)
	if err != nil {
		t.Fatalf("IssuedTokens: %v", err)
	}
	if d := cmp.Diff([]server.IssuedToken{b, a}, got); d != "" {
		t.Errorf("IssuedTokens (-want +got):\n%s", d)
	}
}
