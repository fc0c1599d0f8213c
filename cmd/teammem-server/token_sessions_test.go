package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/sqlite"
)

// TestTokenListSessions: token list shows the OAuth sessions people
// started (per person with --subject), and token revoke --session ends
// one, refusing an id that is no live session.
func TestTokenListSessions(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(dir, embeddedDBName), sqlite.Options{Migrate: true})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC().Truncate(time.Second)
	for i, subject := range []string{"ann", "bob"} {
		s := server.OAuthSession{ID: strings.Repeat(string(rune('a'+i)), 24), Subject: subject, Grants: []string{"acme/*:read"},
			ClientID: "dcr_x", ClientName: "Cursor", RedirectURI: "http://127.0.0.1:9/cb", CodeChallenge: "c",
			Resource: "https://mem.example/mcp", Parent: "token:x", ParentExpires: now.Add(time.Hour), CreatedAt: now,
			ExpiresAt: now.Add(time.Hour), CodeExpires: now.Add(time.Minute)}
		if err := db.StartOAuthSession(ctx, s, "code"+subject); err != nil {
			t.Fatal(err)
		}
		if _, err := db.TakeCode(ctx, "code"+subject, "r"+subject, now); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	ann, bob := strings.Repeat("a", 24), strings.Repeat("b", 24)
	_, out, _ := cli(t, "token", "list", "--data-dir", dir, "--subject", "ann")
	if !strings.Contains(out, "SESSION") || !strings.Contains(out, ann) || strings.Contains(out, bob) || !strings.Contains(out, "Cursor") {
		t.Errorf("token list --subject ann:\n%s", out)
	}
	if code, _, errs := cli(t, "token", "revoke", "--data-dir", dir, "--session", "0123456789abcdef01234567"); code != 1 || !strings.Contains(errs, "no live OAuth session") {
		t.Errorf("revoke of no session: exit %d %q", code, errs)
	}
	if code, _, errs := cli(t, "token", "revoke", "--data-dir", dir, "--session", "nope"); code != 2 {
		t.Errorf("revoke of a malformed id: exit %d %q; want 2", code, errs)
	}
	if code, out, errs := cli(t, "token", "revoke", "--data-dir", dir, "--session", ann); code != 0 || !strings.Contains(out, "ended OAuth session "+ann) {
		t.Fatalf("revoke --session: exit %d %q %q", code, out, errs)
	}
	// ann's session is no longer live: it is listed among the ended ones.
	_, out, _ = cli(t, "token", "list", "--data-dir", dir)
	live, ended, _ := strings.Cut(out, "ended in the last")
	if strings.Contains(live, ann) || !strings.Contains(live, bob) || !strings.Contains(ended, ann) || strings.Contains(ended, bob) {
		t.Errorf("after ending ann's session:\n%s", out)
	}
	if !strings.Contains(out, "ended in the last 7 days:") {
		t.Errorf("the ended sessions' heading does not say 7 days:\n%s", out)
	}
	if _, out, _ = cli(t, "token", "list-revoked", "--data-dir", dir); !strings.Contains(out, ann) {
		t.Errorf("the session's access tokens are not revoked:\n%s", out)
	}
	// The server's chain: both sign-ins, then the operator ending ann's
	// session and revoking its access tokens; the refused revocations
	// record nothing.
	_, out, _ = cli(t, "audit", "export", "--data-dir", dir)
	var acts []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var e struct {
			Record struct {
				Action string
				By     struct{ Subject, Surface string }
				Detail map[string]string
			}
		}
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("export line %q: %v", line, err)
		}
		by, _, _ := strings.Cut(e.Record.By.Subject, ":")
		acts = append(acts, fmt.Sprintf("%s %s%s by %s/%s", e.Record.Action, e.Record.Detail["session"], e.Record.Detail["token"], by, e.Record.By.Surface))
	}
	want := []string{"session.start " + ann + " by ann/web", "session.start " + bob + " by bob/web",
		"session.revoke " + ann + " by operator/cli", "token.revoke " + ann + " by operator/cli"}
	if fmt.Sprint(acts) != fmt.Sprint(want) {
		t.Errorf("the server's audit chain:\n got %q\nwant %q", acts, want)
	}
}
