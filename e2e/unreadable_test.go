//go:build unix

package e2e

import (
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/teammem/teammem/testkit/gittest"
	"github.com/teammem/teammem/testkit/proctest"
)

// TestRepositoryTheTokenCannotRead is issue 29's unreadable repository:
// the token's grant is acme/** and the checkout is other/secret. add says
// the token cannot read it (and registers it: a grant may come); the
// running agent keeps the block out of the checkout instead of telling the
// model the team index is empty, while syncing the readable checkout; and
// status shows the refusal, not a last sync at version 0.
func TestRepositoryTheTokenCannotRead(t *testing.T) {
	w := newWorkstation(t)
	ok := w.loggedIn("acme/ok")[0]
	secret, _ := gittest.NewCheckout(t, "git@github.com:other/secret.git")
	out := w.ok(secret, "", "add")
	if !strings.Contains(out, "cannot read other/secret") {
		t.Errorf("add of a repository the token cannot read says:\n%s", out)
	}
	run := w.startRun()
	proctest.WaitFor(t, "the readable checkout's block", func() bool { return blockOf(ok) != "" })
	proctest.WaitFor(t, "the refusal in the run's log", func() bool { return strings.Contains(run.stderr.String(), "other/secret") })
	time.Sleep(time.Second) // a cycle or more after the refusal
	if b := blockOf(secret); b != "" {
		t.Errorf("the unreadable checkout got a block:\n%s", b)
	}
	st := w.ok(secret, "", "status", "--repo-dir", secret)
	if !strings.Contains(st, "no grant for other/secret") || !strings.Contains(st, "last sync: never") ||
		!strings.Contains(st, "CLAUDE.local.md (claude): kept out: the server refuses the token this repository") {
		t.Errorf("status of the unreadable checkout:\n%s", st)
	}
	t.Logf("status:\n%s", st)
	if code := run.stop(t, syscall.SIGTERM); code != 0 {
		t.Errorf("run exit %d:\n%s", code, run.stderr)
	}
}
