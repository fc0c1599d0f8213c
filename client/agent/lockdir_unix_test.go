//go:build !windows

package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLockDirRefusesOpenFolder: a lock folder others can write to (one
// another user could have planted) is refused, not used.
func TestLockDirRefusesOpenFolder(t *testing.T) {
	d := useLockDir(t)
	if err := os.Mkdir(d, 0o777); err != nil {
		t.Fatal(err)
	}
	os.Chmod(d, 0o777)
	_, err := LockFolder(t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "open to other users") {
		t.Fatalf("LockFolder in a 0777 lock folder: %v", err)
	}
	os.Remove(d)
	if err := os.Symlink(t.TempDir(), d); err != nil {
		t.Fatal(err)
	}
	_, err = LockFolder(t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "not a folder") {
		t.Fatalf("LockFolder through a symlinked lock folder: %v", err)
	}
	if entries, _ := os.ReadDir(filepath.Dir(d)); len(entries) != 1 {
		t.Errorf("lock folder's parent holds %d entries", len(entries))
	}
}
