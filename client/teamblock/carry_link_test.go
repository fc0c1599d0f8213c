//go:build unix

package teamblock

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/teammem/teammem/client/assistants"
	"github.com/teammem/teammem/testkit/gittest"
)

// TestCarryNeverLeavesTheCheckout: an AGENTS.md that is a symbolic link to
// a file outside the checkout is not copied into AGENTS.override.md (its
// text could be a private file's); one linking inside the checkout is, and
// the copy is readable by no one the original is not.
func TestCarryNeverLeavesTheCheckout(t *testing.T) {
	secret := "private notes: the deploy key is in ~/.ssh/prod\n"
	outside := filepath.Join(t.TempDir(), "private.md")
	if err := os.WriteFile(outside, []byte(secret), 0o600); err != nil {
		t.Fatal(err)
	}
	co, _ := gittest.NewCheckout(t, "")
	agents := filepath.Join(co, "AGENTS.md")
	if err := os.Symlink(outside, agents); err != nil {
		t.Fatal(err)
	}
	override := filepath.Join(co, "AGENTS.override.md")
	if _, err := Write(co, assistants.Codex, testBlock); !errors.Is(err, ErrCarryOutside) {
		t.Errorf("Write with AGENTS.md linking out of the checkout: %v; want ErrCarryOutside", err)
	}
	if data, err := os.ReadFile(override); err == nil && strings.Contains(string(data), "deploy key") {
		t.Fatalf("the linked file's text was copied into the checkout:\n%s", data)
	}

	inside := filepath.Join(co, "docs", "agents.md")
	os.MkdirAll(filepath.Dir(inside), 0o755)
	if err := os.WriteFile(inside, []byte("# Agents\nUse tabs.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	os.Remove(agents)
	if err := os.Symlink(filepath.Join("docs", "agents.md"), agents); err != nil {
		t.Fatal(err)
	}
	if _, err := Write(co, assistants.Codex, testBlock); err != nil {
		t.Fatalf("Write with AGENTS.md linking inside the checkout: %v", err)
	}
	if got := readFile(t, override); !strings.Contains(got, "Use tabs.") {
		t.Errorf("the copy of a link inside the checkout:\n%s", got)
	}
	fi, err := os.Stat(override)
	if err != nil || fi.Mode().Perm()&0o077 != 0 {
		t.Errorf("AGENTS.override.md mode %v (%v); want none for group and others, as the 0600 original", fi.Mode().Perm(), err)
	}
}
