//go:build unix

package e2e

import (
	"context"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/testkit/gittest"
	"github.com/teammem/teammem/testkit/proctest"
)

// TestRunningAgentObeysAddAndRemove is issue 29's running agent and its
// registered checkouts: `remove` while `run` is active takes the block out
// at once and for good (the running agent never writes it back, not on its
// next cycles nor when it stops that folder's engine), and a checkout added
// to the running agent (a new repository, a new worktree of a synced one)
// gets its block within seconds, without waiting for the index to change.
func TestRunningAgentObeysAddAndRemove(t *testing.T) {
	w := newWorkstation(t)
	cos := w.loggedIn("acme/one", "acme/two")
	one, two := cos[0], cos[1]
	three, _ := gittest.NewCheckout(t, "https://github.com/acme/three.git")
	run := w.startRun()
	proctest.WaitFor(t, "the blocks of both checkouts", func() bool { return blockOf(one) != "" && blockOf(two) != "" })

	// remove wins at once, and for good: while the engine of two's folder
	// still runs (the configuration is read every 2 s), while it stops,
	// and after, with a teammate's index line arriving meanwhile.
	w.ok(w.home, "", "remove", two)
	if b := blockOf(two); b != "" {
		t.Fatalf("remove returned with the block still in %s:\n%s", two, b)
	}
	put := func(repo, key, content string) {
		t.Helper()
		if _, err := w.srv.api.Put(context.Background(), repo, api.PutRequest{Entries: map[string]string{key: content}}, ""); err != nil {
			t.Fatal(err)
		}
	}
	put("acme/two", "MEMORY.md", "- [deploys](deploys.md): how we deploy\n")
	put("acme/two", "deploys.md", "we deploy on Tuesdays\n")
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if b := blockOf(two); b != "" {
			t.Fatalf("the running agent wrote the removed checkout's block back:\n%s\nstderr:\n%s", b, run.stderr)
		}
	}

	// A new repository's checkout, and a new worktree of a synced one,
	// added to the running agent: each gets its block within seconds.
	added := time.Now()
	w.ok(three, "", "add")
	proctest.WaitFor(t, "the block of the added repository's checkout", func() bool { return blockOf(three) != "" })
	t.Logf("a new repository's checkout got its block %v after add", time.Since(added).Round(10*time.Millisecond))
	tree := filepath.Join(t.TempDir(), "one-hotfix")
	gittest.Run(t, one, "worktree", "add", "-q", "-b", "hotfix", tree)
	added = time.Now()
	w.ok(tree, "", "add")
	proctest.WaitFor(t, "the block of the added worktree", func() bool { return blockOf(tree) != "" })
	t.Logf("a new worktree of a synced repository got its block %v after add", time.Since(added).Round(10*time.Millisecond))
	if b := blockOf(two); b != "" {
		t.Errorf("the removed checkout's block is back:\n%s", b)
	}
	if code := run.stop(t, syscall.SIGTERM); code != 0 {
		t.Errorf("run exit %d:\n%s", code, run.stderr)
	}
	if b := blockOf(two); b != "" {
		t.Errorf("the removed checkout's block is back after run stopped:\n%s", b)
	}
}

// loggedIn logs the workstation in and registers a new checkout of each
// repository (acme/one → git@github.com:acme/one.git); it returns their
// top folders.
func (w *workstation) loggedIn(repos ...string) []string {
	w.t.Helper()
	var out []string
	for i, r := range repos {
		co, _ := gittest.NewCheckout(w.t, "git@github.com:"+r+".git")
		if i == 0 {
			w.ok(co, w.token+"\n", "login", "--server", w.srv.url())
		}
		w.ok(co, "", "add")
		out = append(out, co)
	}
	return out
}

// startRun starts `teammem-agent run` on the registered checkouts; it is
// stopped (SIGTERM) at the end of the test.
func (w *workstation) startRun() *proc {
	w.t.Helper()
	run := w.agent(w.home, "", "run", "--debounce", "200ms", "--max-delay", "1s", "--poll", "1s")
	w.t.Cleanup(func() { run.stop(w.t, syscall.SIGTERM) })
	return run
}
