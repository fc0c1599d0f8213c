package teamblock

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/teammem/teammem/client/assistants"
	"github.com/teammem/teammem/testkit/gittest"
)

func TestRemoveRepoBlocks(t *testing.T) {
	main, linked := gittest.NewCheckout(t, "")
	other, _ := gittest.NewCheckout(t, "")
	for _, co := range []string{main, linked} {
		if _, err := Write(co, assistants.Claude, testBlock); err != nil {
			t.Fatal(err)
		}
	}
	if removed, keptBy, err := RemoveRepoBlocks(main, []string{other, linked}); err != nil || keptBy != linked || len(removed) != 0 {
		t.Fatalf("a sibling worktree still synced: removed %v, kept by %q, %v", removed, keptBy, err)
	}
	removed, keptBy, err := RemoveRepoBlocks(main, []string{other})
	if err != nil || keptBy != "" || len(removed) != 2 {
		t.Fatalf("removed %v, kept by %q, %v", removed, keptBy, err)
	}
	for _, co := range []string{main, linked} {
		if _, err := os.Stat(filepath.Join(co, assistants.Claude.File)); !os.IsNotExist(err) {
			t.Errorf("%s still has its CLAUDE.local.md: %v", co, err)
		}
	}
	if removed, _, err := RemoveRepoBlocks(filepath.Join(main, "gone"), nil); err != nil || len(removed) != 0 {
		t.Errorf("a folder that is gone: %v, %v", removed, err)
	}
}
