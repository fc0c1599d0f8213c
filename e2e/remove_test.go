//go:build unix

package e2e

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/teammem/teammem/testkit/gittest"
)

// TestRemoveGivesTheCheckoutBack: `remove` takes out what the agent put
// into a checkout for its block: the block's file in each worktree and
// the lines it added to the repository's .git/info/exclude, which is
// again what it was, byte for byte; git sees nothing.
func TestRemoveGivesTheCheckoutBack(t *testing.T) {
	w := newWorkstation(t)
	checkout, linked := gittest.NewCheckout(t, "git@github.com:acme/gone.git")
	exclude := filepath.Join(checkout, ".git", "info", "exclude")
	before := read(exclude, "")
	w.ok(checkout, w.token+"\n", "login", "--server", w.srv.url())
	w.ok(checkout, "", "add", "--assistants", "claude")
	write(t, w.teamDir(checkout), "MEMORY.md", "- [Deploys](deploys.md) — how we deploy\n")
	write(t, w.teamDir(checkout), "deploys.md", "Run make deploy from main only.\n")
	w.ok(checkout, "", "sync")
	for _, co := range []string{checkout, linked} {
		if blockOf(co) == "" {
			t.Fatalf("sync wrote no block into %s", co)
		}
	}
	if got := read(exclude, ""); !strings.Contains(got, "\n/CLAUDE.local.md\n") {
		t.Fatalf("sync did not keep CLAUDE.local.md out of git; info/exclude:\n%s", got)
	}

	out := w.ok(w.home, "", "remove", checkout)
	if !strings.Contains(out, "took the team memory block out of") {
		t.Errorf("remove does not say it took the block out: %s", out)
	}
	for _, co := range []string{checkout, linked} {
		if got := read(co, "CLAUDE.local.md"); got != absent {
			t.Errorf("after remove %s/CLAUDE.local.md is %q", co, got)
		}
		if st := gittest.Run(t, co, "status", "--porcelain", "--ignored"); st != "" {
			t.Errorf("git status --ignored in %s after remove:\n%s", co, st)
		}
	}
	if got := read(exclude, ""); got != before {
		t.Errorf("after remove info/exclude is\n%q\nwant it as it was:\n%q", got, before)
	}
}
