package agent

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/teammem/teammem/client"
	"github.com/teammem/teammem/client/assistants"
	"github.com/teammem/teammem/testkit/gittest"
)

// TestRefusedTokenKeepsTheBlock: once the server refuses the token (it
// expired), the block stays as the team folder on disk has it; a day
// after the expiry it says since when it is out of date, and a token the
// server takes again brings the plain block back. A folder never synced
// gets no block from a refused token (it would say nobody shared anything).
func TestRefusedTokenKeepsTheBlock(t *testing.T) {
	main, _ := gittest.NewCheckout(t, "")
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	exp := now.Add(time.Hour)
	server := map[string]string{"MEMORY.md": "- [Deploys](deploys.md) — deploy runbook\n", "deploys.md": "make deploy\n"}
	mod := func(c *Config) {
		c.Block = BlockConfig{Checkouts: StaticCheckouts(main)}
		c.Now = func() time.Time { return now }
		c.TokenExpiry = func() (time.Time, bool) { return exp, true }
	}
	r := newRig(t, server, nil, mod)
	r.sync(t)
	local := filepath.Join(main, assistants.Claude.File)
	fresh := readFile(t, local)

	r.remote.getErr = client.ErrUnauthorized
	now = exp.Add(time.Minute)
	if _, err := r.engine.Sync(context.Background()); err == nil {
		t.Fatal("a refused pull succeeded")
	}
	if got := readFile(t, local); got != fresh {
		t.Fatalf("after the token expired the block became\n%s", got)
	}
	now = exp.Add(UnsyncedNoteAfter)
	r.engine.Sync(context.Background())
	if got := readFile(t, local); !strings.Contains(got, "Out of date: teammem has not synced the team folder since 2026-05-01") ||
		!strings.Contains(got, "deploy runbook") {
		t.Fatalf("a day after the expiry the block is\n%s", got)
	}
	r.remote.getErr = nil
	r.sync(t)
	if got := readFile(t, local); got != fresh {
		t.Errorf("with the token taken again the block is\n%s", got)
	}

	// Never synced: no block.
	other, _ := gittest.NewCheckout(t, "")
	fresh2 := newRig(t, server, nil, func(c *Config) { mod(c); c.Block = BlockConfig{Checkouts: StaticCheckouts(other)} })
	fresh2.remote.getErr = client.ErrUnauthorized
	fresh2.engine.Sync(context.Background())
	if got, err := os.ReadFile(filepath.Join(other, assistants.Claude.File)); err == nil {
		t.Errorf("a folder never synced got a block from a refused token:\n%s", got)
	}
}

// TestExpiryWarnedOnce: within ExpiryWarning of the token's expiry a
// cycle's report says so once, with what gets a new token; a new expiry
// is said again; one further off is not said.
func TestExpiryWarnedOnce(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	exp := now.Add(30 * 24 * time.Hour)
	r := newRig(t, map[string]string{"a.md": "a\n"}, nil, func(c *Config) {
		c.Now = func() time.Time { return now }
		c.TokenExpiry = func() (time.Time, bool) { return exp, true }
		c.Relogin = "run teammem-agent login --server https://m"
	})
	if rep := r.sync(t); rep.Token != "" {
		t.Errorf("30 days ahead: %q", rep.Token)
	}
	now = exp.Add(-3 * 24 * time.Hour)
	want := "the token expires on 2026-05-31 12:00 UTC (in 3 days): before then, run teammem-agent login --server https://m"
	if rep := r.sync(t); rep.Token != want {
		t.Errorf("3 days ahead: %q\nwant %q", rep.Token, want)
	}
	if rep := r.sync(t); rep.Token != "" {
		t.Errorf("said again: %q", rep.Token)
	}
	exp = now.Add(5 * time.Hour)
	if rep := r.sync(t); !strings.Contains(rep.Token, "(in 5 hours)") {
		t.Errorf("a new expiry: %q", rep.Token)
	}
}

func TestTokenNote(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		exp  time.Time
		want string
	}{
		{now.Add(8 * 24 * time.Hour), ""},
		{now.Add(7 * 24 * time.Hour), "expires on 2026-05-08 12:00 UTC (in 7 days): before then, FIX"},
		{now.Add(90 * time.Minute), "expires on 2026-05-01 13:30 UTC (in 90 minutes): before then, FIX"},
		{now.Add(61 * time.Second), "expires on 2026-05-01 12:01 UTC (in 1 minute): before then, FIX"},
		{now.Add(time.Second), "expires on 2026-05-01 12:00 UTC (in less than a minute): before then, FIX"},
		{now, "expired on 2026-05-01 12:00 UTC: FIX"},
		{now.Add(-48 * time.Hour), "expired on 2026-04-29 12:00 UTC: FIX"},
	} {
		if got := TokenNote(tc.exp, now, "FIX"); got != tc.want {
			t.Errorf("TokenNote(%v) = %q; want %q", tc.exp, got, tc.want)
		}
	}
}
