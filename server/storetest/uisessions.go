package storetest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/teammem/teammem/server"
)

// EndedSessions checks a store's ended web UI sessions: an ended id reads
// as ended and no other does, ending it again changes nothing, malformed
// records are refused without a trace, and a sign-out forgets the sessions
// that expired before it.
func EndedSessions(t *testing.T, s server.SessionStore) {
	ctx := context.Background()
	at := t0.Truncate(time.Microsecond)
	a, b, c := strings.Repeat("a", 43), strings.Repeat("b", 43), "C-_"+strings.Repeat("9", 40)
	ended := func(id string) bool {
		t.Helper()
		ok, err := s.SessionEnded(ctx, id)
		if err != nil {
			t.Fatalf("SessionEnded(%s): %v", id, err)
		}
		return ok
	}
	if ended(a) {
		t.Fatalf("a session is ended on a new store")
	}
	for _, e := range []server.EndedSession{
		{ID: a, Expires: at.Add(time.Hour), At: at},
		{ID: a, Expires: at.Add(2 * time.Hour), At: at.Add(time.Minute)}, // again: kept once
		{ID: b, Expires: at.Add(12 * time.Hour), At: at},
	} {
		if err := s.EndSession(ctx, e); err != nil {
			t.Fatalf("EndSession(%+v): %v", e, err)
		}
	}
	for _, bad := range []server.EndedSession{
		{ID: "", Expires: at.Add(time.Hour), At: at},
		{ID: "short", Expires: at.Add(time.Hour), At: at},
		{ID: strings.Repeat("x", 129), Expires: at.Add(time.Hour), At: at},
		{ID: strings.Repeat("x", 40) + "'; --", Expires: at.Add(time.Hour), At: at},
		{ID: strings.Repeat("d", 43), Expires: at.Add(-time.Second), At: at},
		{ID: strings.Repeat("d", 43), Expires: at.Add(time.Hour)},
	} {
		if err := s.EndSession(ctx, bad); err == nil {
			t.Errorf("EndSession(%+v) succeeded; want an error", bad)
		}
	}
	if !ended(a) || !ended(b) || ended(c) || ended(strings.Repeat("d", 43)) {
		t.Fatalf("ended a, b, c, d = %v %v %v %v; want true true false false", ended(a), ended(b), ended(c), ended(strings.Repeat("d", 43)))
	}
	// Two hours later a's session has expired (its cookie is refused
	// anyway): the next sign-out forgets it and keeps b.
	if err := s.EndSession(ctx, server.EndedSession{ID: c, Expires: at.Add(14 * time.Hour), At: at.Add(2 * time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if ended(a) || !ended(b) || !ended(c) {
		t.Errorf("after a later sign-out: ended a, b, c = %v %v %v; want false true true", ended(a), ended(b), ended(c))
	}
}
