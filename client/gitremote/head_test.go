package gitremote_test

import (
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/teammem/teammem/client/gitremote"
	"github.com/teammem/teammem/testkit/gittest"
)

// TestHead: the commit HEAD names in a checkout and in a linked worktree
// (each its own), none before the first commit, ErrNotRepo outside one.
func TestHead(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	main, linked := gittest.NewCheckout(t, "")
	gittest.Run(t, linked, "commit", "-q", "--allow-empty", "-m", "on feature")
	for _, dir := range []string{main, linked} {
		want := strings.TrimSpace(gittest.Run(t, dir, "rev-parse", "HEAD"))
		if got, err := gitremote.Head(dir); err != nil || got != want {
			t.Errorf("Head(%s) = %q, %v; want %s", dir, got, err, want)
		}
	}
	fresh := t.TempDir()
	gittest.Run(t, fresh, "init", "-q")
	if got, err := gitremote.Head(fresh); err != nil || got != "" {
		t.Errorf("Head before the first commit = %q, %v; want none", got, err)
	}
	if _, err := gitremote.Head(t.TempDir()); !errors.Is(err, gitremote.ErrNotRepo) {
		t.Errorf("Head outside a repository: %v; want ErrNotRepo", err)
	}
}
