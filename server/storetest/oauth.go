package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/teammem/teammem/server"
)

// OAuth checks a store's OAuth state through two handles on it (a and b:
// the same store, or two replicas on one database): clients round-trip, a
// code is exchanged once and a second exchange revokes its session, a
// refresh token rotates once and a replay after rotation revokes the
// family (on whichever replica it comes), a race for one token has one
// winner, and a person lists and revokes their own sessions only.
func OAuth(t *testing.T, a, b server.OAuthStore) {
	ctx := context.Background()
	now := t0.Truncate(time.Microsecond)
	client := server.OAuthClient{ID: "dcr_" + strings.Repeat("c", 32), Name: "Inspector",
		RedirectURIs: []string{"http://127.0.0.1:9/cb", "https://example.com/cb"}, CreatedAt: now}
	if err := a.RegisterClient(ctx, client); err != nil {
		t.Fatal(err)
	}
	if got, err := b.OAuthClient(ctx, client.ID); err != nil || !cmp.Equal(got, client) {
		t.Errorf("OAuthClient = %+v, %v; want %+v", got, err, client)
	}
	if _, err := b.OAuthClient(ctx, "dcr_nope"); !errors.Is(err, server.ErrNotFound) {
		t.Errorf("unknown client: %v; want ErrNotFound", err)
	}
	if err := a.RegisterClient(ctx, server.OAuthClient{Name: "no id", CreatedAt: now}); err == nil {
		t.Error("a client without an id was registered")
	}
	device := server.OAuthClient{ID: "dcr_" + strings.Repeat("d", 32), Name: "Agent", CreatedAt: now}
	if err := a.RegisterClient(ctx, device); err != nil {
		t.Errorf("a client of the device grant alone (no redirect URI): %v", err)
	}
	if got, err := b.OAuthClient(ctx, device.ID); err != nil || len(got.RedirectURIs) != 0 || got.Name != device.Name {
		t.Errorf("the device client read back: %+v, %v", got, err)
	}

	start := func(id, subject, code string) server.OAuthSession {
		t.Helper()
		s := server.OAuthSession{ID: strings.Repeat(id, 24), Subject: subject, DisplayName: "Ann", Grants: []string{"acme/*:write"},
			ClientID: client.ID, ClientName: client.Name, RedirectURI: client.RedirectURIs[0], CodeChallenge: "chal",
			Resource: "https://mem.example/mcp", Parent: "token:" + strings.Repeat("e", 24), ParentExpires: now.Add(30 * 24 * time.Hour),
			CreatedAt: now, ExpiresAt: now.Add(24 * time.Hour), CodeExpires: now.Add(time.Minute)}
		if err := a.StartOAuthSession(ctx, s, code); err != nil {
			t.Fatalf("StartOAuthSession: %v", err)
		}
		s.LastUsedAt = now
		return s
	}
	want := start("1", "ann", "code1")
	got, err := b.TakeCode(ctx, "code1", "r1", now.Add(time.Second))
	want.LastUsedAt = now.Add(time.Second)
	if err != nil || !cmp.Equal(got, want) {
		t.Fatalf("TakeCode = %+v, %v; want %+v", got, err, want)
	}
	rotate := func(s server.OAuthStore, old, next string, at time.Duration) error {
		_, err := s.RotateRefresh(ctx, old, next, now.Add(at))
		return err
	}
	if err := rotate(a, "r1", "r2", 2*time.Second); err != nil {
		t.Fatalf("rotate r1: %v", err)
	}
	if err := rotate(b, "r2", "r3", 3*time.Second); err != nil {
		t.Fatalf("rotate r2 on the other replica: %v", err)
	}
	if err := rotate(a, "r1", "rx", 4*time.Second); !errors.Is(err, server.ErrRefreshReused) {
		t.Fatalf("replayed r1: %v; want ErrRefreshReused", err)
	}
	if err := rotate(b, "r3", "r4", 5*time.Second); !errors.Is(err, server.ErrNotFound) {
		t.Errorf("r3 after its family's replay: %v; want ErrNotFound (the family is dead)", err)
	}

	start("2", "ann", "code2")
	if _, err := a.TakeCode(ctx, "code2", "s1", now.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	if s, err := b.TakeCode(ctx, "code2", "s1b", now.Add(2*time.Second)); !errors.Is(err, server.ErrCodeReused) || s.ID != strings.Repeat("2", 24) {
		t.Fatalf("code taken twice: %v, session %q; want ErrCodeReused naming the session", err, s.ID)
	}
	if err := rotate(a, "s1", "s2", 3*time.Second); !errors.Is(err, server.ErrNotFound) {
		t.Errorf("refresh of a session whose code was replayed: %v; want ErrNotFound", err)
	}
	start("3", "ann", "code3")
	if _, err := a.TakeCode(ctx, "code3", "t1", now.Add(2*time.Minute)); !errors.Is(err, server.ErrNotFound) {
		t.Errorf("expired code: %v; want ErrNotFound", err)
	}
	if _, err := a.TakeCode(ctx, "nocode", "t1", now); !errors.Is(err, server.ErrNotFound) {
		t.Errorf("unknown code: %v; want ErrNotFound", err)
	}

	// Two replicas race for one refresh token: one wins, the other is a
	// replay and the family dies.
	start("4", "ann", "code4")
	if _, err := a.TakeCode(ctx, "code4", "u1", now.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, s := range []server.OAuthStore{a, b} {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = rotate(s, "u1", fmt.Sprintf("u2-%d", i), 2*time.Second) }()
	}
	wg.Wait()
	if (errs[0] == nil) == (errs[1] == nil) {
		t.Fatalf("racing rotations: %v, %v; want exactly one success", errs[0], errs[1])
	}

	start("5", "ann", "code5")
	start("6", "bob", "code6")
	for _, c := range []string{"code5", "code6"} {
		if _, err := a.TakeCode(ctx, c, "v"+c, now.Add(time.Second)); err != nil {
			t.Fatal(err)
		}
	}
	ids := func(subject string) []string {
		t.Helper()
		list, err := b.OAuthSessions(ctx, subject, now.Add(time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, s := range list {
			out = append(out, s.ID[:1])
		}
		return out
	}
	if got := ids("ann"); !cmp.Equal(got, []string{"5"}) {
		t.Errorf("ann's live sessions = %v; want [5] (the race's loser revoked 4)", got)
	}
	if err := a.RevokeOAuthSession(ctx, "bob", strings.Repeat("5", 24), now.Add(time.Minute)); !errors.Is(err, server.ErrNotFound) {
		t.Errorf("bob revoking ann's session: %v; want ErrNotFound", err)
	}
	byAnn := server.WithAuditActor(ctx, server.AuditActor{Subject: "ann", Surface: "web"})
	if err := a.RevokeOAuthSession(byAnn, "ann", strings.Repeat("5", 24), now.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if err := rotate(b, "vcode5", "w", 2*time.Minute); !errors.Is(err, server.ErrNotFound) {
		t.Errorf("refresh of a revoked session: %v; want ErrNotFound", err)
	}
	if got := ids(""); !cmp.Equal(got, []string{"6"}) {
		t.Errorf("everyone's sessions = %v; want [6]", got)
	}
	if err := a.StartOAuthSession(ctx, server.OAuthSession{ID: "bad"}, "c"); err == nil {
		t.Error("a malformed session was started")
	}
	oauthAudit(t, a)
}

// oauthAudit checks the server's audit chain after OAuth's acts: each
// session started, each ended by a replay (the server, saying why) or by
// its person; a refused revocation and a malformed session record nothing.
func oauthAudit(t *testing.T, s server.OAuthStore) {
	log, ok := s.(server.AuditLog)
	if !ok {
		return
	}
	var got []string
	err := log.AuditEntries(context.Background(), server.AuditQuery{Chain: server.ServerChain}, func(e server.AuditEntry) error {
		var r server.AuditRecord
		if err := json.Unmarshal(e.Body, &r); err != nil {
			return err
		}
		got = append(got, fmt.Sprintf("%s %.1s %s by %s", r.Action, r.Detail["session"], r.Detail["subject"], r.By.Subject)+
			map[bool]string{true: ": " + r.Detail["why"]}[r.Detail["why"] != ""])
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"session.start 1 ann by ann", "session.revoke 1 ann by server: " + server.ErrRefreshReused.Error(),
		"session.start 2 ann by ann", "session.revoke 2 ann by server: " + server.ErrCodeReused.Error(),
		"session.start 3 ann by ann", "session.start 4 ann by ann", "session.revoke 4 ann by server: " + server.ErrRefreshReused.Error(),
		"session.start 5 ann by ann", "session.start 6 bob by bob", "session.revoke 5 ann by ann"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("the server's audit chain:\n got %q\nwant %q", got, want)
	}
	verifyClean(t, log)
}
