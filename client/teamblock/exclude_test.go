package teamblock

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/teammem/teammem/client/assistants"
	"github.com/teammem/teammem/testkit/gittest"
)

// TestRemoveTakesOutItsExcludeLines: on a real checkout with a linked
// worktree, the info/exclude lines the agent added go once no worktree
// holds the file, and not before; every other line of the user's stays
// byte for byte; git then sees the file again. A file kept for the user's
// text in it stays out of git.
func TestRemoveTakesOutItsExcludeLines(t *testing.T) {
	main, linked := gittest.NewCheckout(t, "")
	exclude := filepath.Join(main, ".git", "info", "exclude")
	user := readFile(t, exclude) + "# mine\n*.log\n" + excludeLines("other.md") + "/build/\r\n"
	if err := os.WriteFile(exclude, []byte(user), 0o600); err != nil || os.Chmod(exclude, 0o600) != nil {
		t.Fatal(err)
	}
	for _, co := range []string{main, linked} {
		if _, err := Write(co, assistants.Claude, testBlock); err != nil {
			t.Fatal(err)
		}
	}
	if got := readFile(t, exclude); got != user+excludeLines(assistants.Claude.File) {
		t.Fatalf("info/exclude after Write:\n%q", got)
	}

	if _, err := Remove(main, assistants.Claude); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, exclude); got != user+excludeLines(assistants.Claude.File) {
		t.Errorf("the linked worktree still holds the file, but info/exclude became:\n%q", got)
	}
	if st := gittest.Run(t, linked, "status", "--porcelain", "--untracked-files=all"); st != "" {
		t.Errorf("git status in the linked worktree:\n%s", st)
	}

	if changed, err := Remove(linked, assistants.Claude); err != nil || !changed {
		t.Fatalf("Remove = %v, %v", changed, err)
	}
	if got := readFile(t, exclude); got != user {
		t.Errorf("info/exclude after the last file went:\n%q\nwant\n%q", got, user)
	}
	if fi, err := os.Stat(exclude); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("info/exclude mode: %v, %v; want the user's 0600", fi.Mode(), err)
	}
	if changed, err := Remove(linked, assistants.Claude); err != nil || changed {
		t.Errorf("Remove again = %v, %v; want nothing to do", changed, err)
	}
	os.WriteFile(filepath.Join(main, assistants.Claude.File), []byte("mine\n"), 0o644)
	if st := gittest.Run(t, main, "status", "--porcelain", "--untracked-files=all"); !strings.Contains(st, assistants.Claude.File) {
		t.Errorf("git does not see a new %s after the agent left:\n%s", assistants.Claude.File, st)
	}

	// A file holding the user's text besides the block stays, and stays
	// out of git.
	if _, err := Write(main, assistants.Claude, testBlock); err != nil {
		t.Fatal(err)
	}
	if _, err := Remove(main, assistants.Claude); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(main, assistants.Claude.File)); got != "mine\n" {
		t.Errorf("the user's file became %q", got)
	}
	if got := readFile(t, exclude); got != user+excludeLines(assistants.Claude.File) {
		t.Errorf("info/exclude while the user's file stays:\n%q", got)
	}
	if st := gittest.Run(t, main, "status", "--porcelain", "--untracked-files=all"); st != "" {
		t.Errorf("git status:\n%s", st)
	}
}

// TestWithoutExcludeLines: only whole-line copies of the agent's two
// lines go; an edited copy, another file's, or a pattern inside a longer
// line stay.
func TestWithoutExcludeLines(t *testing.T) {
	ours := excludeLines("CLAUDE.local.md")
	for in, want := range map[string]string{
		ours:                                "",
		"a\n" + ours + "b\n":                "a\nb\n",
		"a\n" + ours:                        "a\n",
		ours + ours:                         "",
		"a" + ours:                          "a" + ours,
		"# edited\n/CLAUDE.local.md\n":      "# edited\n/CLAUDE.local.md\n",
		excludeLines("GEMINI.md"):           excludeLines("GEMINI.md"),
		strings.TrimSuffix(ours, "\n"):      strings.TrimSuffix(ours, "\n"),
		"x\r\n" + ours + "no final newline": "x\r\nno final newline",
		"":                                  "",
	} {
		if got := withoutExcludeLines(in, "CLAUDE.local.md"); got != want {
			t.Errorf("withoutExcludeLines(%q) = %q; want %q", in, got, want)
		}
	}
}
