package storetest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/teammem/teammem/server"
)

// Revocations checks a store's token revocations: both kinds recorded and
// read back, a repeated token id kept once, a subject's time only moving
// later, and malformed revocations refused without a trace.
func Revocations(t *testing.T, s server.RevocationStore) {
	ctx := context.Background()
	got, err := s.Revocations(ctx)
	if err != nil || len(got) != 0 {
		t.Fatalf("Revocations on a new store = %v, %v; want none", got, err)
	}
	at := t0.Truncate(time.Microsecond)
	before := at.Add(-time.Hour)
	steps := []server.Revocation{
		{TokenID: "0123abcd", At: at},
		{TokenID: "0123abcd", At: at.Add(time.Minute)}, // again: the first stays
		{Subject: "alice", Before: before, At: at},
		{Subject: "alice", Before: before.Add(-time.Minute), At: at.Add(2 * time.Minute)}, // earlier: ignored
		{Subject: "bob", Before: before, At: at},
		{Subject: "bob", Before: before.Add(30 * time.Minute), At: at.Add(3 * time.Minute)}, // later: moves
		{TokenID: "ÄÖ-ü:δ", At: at},
	}
	for _, r := range steps {
		if err := s.Revoke(ctx, r); err != nil {
			t.Fatalf("Revoke(%+v): %v", r, err)
		}
	}
	for _, bad := range []server.Revocation{
		{At: at},
		{TokenID: "x", Subject: "y", Before: before, At: at},
		{Subject: "carol", At: at},
		{TokenID: "x", Before: before, At: at},
		{TokenID: "a\nb", At: at},
		{Subject: strings.Repeat("a", server.MaxRevocationField+1), Before: before, At: at},
	} {
		if err := s.Revoke(ctx, bad); err == nil {
			t.Errorf("Revoke(%+v) succeeded; want an error", bad)
		}
	}
	want := []server.Revocation{
		{TokenID: "0123abcd", At: at},
		{TokenID: "ÄÖ-ü:δ", At: at},
		{Subject: "alice", Before: before, At: at},
		{Subject: "bob", Before: before.Add(30 * time.Minute), At: at.Add(3 * time.Minute)},
	}
	got, err = s.Revocations(ctx)
	if err != nil {
		t.Fatalf("Revocations: %v", err)
	}
	sortBy := cmpopts.SortSlices(func(a, b server.Revocation) bool { return a.TokenID+"/"+a.Subject < b.TokenID+"/"+b.Subject })
	if diff := cmp.Diff(want, got, sortBy); diff != "" {
		t.Errorf("revocations (-want +got):\n%s", diff)
	}
}
