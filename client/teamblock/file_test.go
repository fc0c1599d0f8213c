package teamblock

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/teammem/teammem/client/assistants"
	"github.com/teammem/teammem/client/gitremote"
	"github.com/teammem/teammem/testkit/gittest"
)

const testBlock = Begin + "\n# Team memory\n\n- [A](/t/a.md)\n" + End + "\n"

func TestSpliceBlock(t *testing.T) {
	other := Begin + "\nold\n" + End + "\n"
	tests := []struct{ name, in, want string }{
		{"empty file", "", testBlock},
		{"user text without final newline", "my notes", testBlock + "my notes"},
		{"user text", "# Mine\n\nnotes\n", testBlock + "# Mine\n\nnotes\n"},
		{"byte order mark", "\uFEFFnotes\n", "\uFEFF" + testBlock + "notes\n"},
		{"frontmatter", "---\npaths: x\n---\nnotes\n", "---\npaths: x\n---\n" + testBlock + "notes\n"},
		{"block replaced in place", "top\n" + other + "bottom", "top\n" + testBlock + "bottom"},
		{"block at end without newline", "top\n" + strings.TrimSuffix(other, "\n"), "top\n" + testBlock},
		{"crlf markers", "a\r\n" + Begin + "\r\nold\r\n" + End + "\r\nb\r\n", "a\r\n" + testBlock + "b\r\n"},
		{"marker text inside a line is not a marker", "see " + End + " here\n", testBlock + "see " + End + " here\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := spliceBlock(tt.in, testBlock)
			if err != nil || got != tt.want {
				t.Fatalf("spliceBlock(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
			if again, _ := spliceBlock(got, testBlock); again != got {
				t.Errorf("splicing the same block twice changed the file: %q", again)
			}
		})
	}
	for _, damaged := range []string{
		Begin + "\nno end\n",
		"no begin\n" + End + "\n",
		End + "\n" + Begin + "\n",
		other + other,
	} {
		if _, err := spliceBlock(damaged, testBlock); !errors.Is(err, ErrDamaged) {
			t.Errorf("spliceBlock(%q) error %v, want ErrDamaged", damaged, err)
		}
	}
}

// TestSpliceRemoveRestores checks that removing a block that was inserted
// gives back the user's text byte for byte.
func TestSpliceRemoveRestores(t *testing.T) {
	for _, user := range []string{"", "x", "x\n", "\n\nx\n\n", "\uFEFF---\na: b\n---\nbody", "---\nunclosed\n", "\r\n"} {
		with, err := spliceBlock(user, testBlock)
		if err != nil {
			t.Fatal(err)
		}
		back, err := spliceBlock(with, "")
		if err != nil || back != user {
			t.Errorf("insert then remove of %q gave %q, %v", user, back, err)
		}
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestWriteBlockKeepsGitClean(t *testing.T) {
	main, linked := gittest.NewCheckout(t, "")
	user := "# My own notes\n\nuse tabs\n"
	os.WriteFile(filepath.Join(linked, assistants.Claude.File), []byte(user), 0o600)
	for _, co := range []string{main, linked} {
		wrote, err := Write(co, assistants.Claude, testBlock)
		if err != nil || !wrote {
			t.Fatalf("WriteBlock(%s) = %v, %v", co, wrote, err)
		}
		if st := gittest.Run(t, co, "status", "--porcelain"); st != "" {
			t.Errorf("git status in %s is not clean:\n%s", co, st)
		}
	}
	if got := readFile(t, filepath.Join(main, assistants.Claude.File)); got != testBlock {
		t.Errorf("created file %q", got)
	}
	path := filepath.Join(linked, assistants.Claude.File)
	if got := readFile(t, path); got != testBlock+user {
		t.Errorf("user's file became %q", got)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want the user's 0600 kept", fi.Mode().Perm())
	}
	exclude := readFile(t, filepath.Join(main, ".git", "info", "exclude"))
	if strings.Count(exclude, "\n"+"/"+assistants.Claude.File+"\n") != 1 {
		t.Errorf("info/exclude:\n%s", exclude)
	}

	old := time.Now().Add(-time.Hour)
	os.Chtimes(path, old, old)
	if wrote, err := Write(linked, assistants.Claude, testBlock); err != nil || wrote {
		t.Errorf("the same block again: wrote %v, %v", wrote, err)
	}
	if fi, _ := os.Stat(path); !fi.ModTime().Equal(old) {
		t.Error("the same block again bumped the file's modification time")
	}

	for _, co := range []string{main, linked} {
		if _, err := Remove(co, assistants.Claude); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(filepath.Join(main, assistants.Claude.File)); !os.IsNotExist(err) {
		t.Error("removing the block left the file the agent created")
	}
	if got := readFile(t, path); got != user {
		t.Errorf("after removal the user's file is %q, want %q", got, user)
	}
}

func TestWriteBlockLeavesTrackedFileAlone(t *testing.T) {
	main, _ := gittest.NewCheckout(t, "")
	path := filepath.Join(main, assistants.Claude.File)
	os.WriteFile(path, []byte("team-wide, committed\n"), 0o644)
	gittest.Run(t, main, "add", assistants.Claude.File)
	gittest.Run(t, main, "commit", "-q", "-m", "track it")
	_, err := Write(main, assistants.Claude, testBlock)
	if !errors.Is(err, ErrTracked) || !strings.Contains(Fix(assistants.Claude, err), "git rm --cached") {
		t.Fatalf("WriteBlock on a tracked file: %v (fix %q)", err, Fix(assistants.Claude, err))
	}
	if got := readFile(t, path); got != "team-wide, committed\n" {
		t.Errorf("tracked file changed to %q", got)
	}
	if _, err := os.Stat(filepath.Join(main, ".git", "info", "exclude")); err == nil &&
		strings.Contains(readFile(t, filepath.Join(main, ".git", "info", "exclude")), "/"+assistants.Claude.File) {
		t.Error("info/exclude changed for a tracked file")
	}
	if st := State(main, assistants.Claude); !strings.Contains(st.State, "tracked by git") || st.Fix == "" {
		t.Errorf("State = %+v", st)
	}
}

func TestWriteBlockRefusesLinksAndDamage(t *testing.T) {
	main, _ := gittest.NewCheckout(t, "")
	path := filepath.Join(main, assistants.Claude.File)
	target := filepath.Join(t.TempDir(), "elsewhere.md")
	os.WriteFile(target, []byte("x\n"), 0o644)
	os.Symlink(target, path)
	if _, err := Write(main, assistants.Claude, testBlock); !errors.Is(err, ErrNotRegular) {
		t.Errorf("symlinked file: %v", err)
	}
	if got := readFile(t, target); got != "x\n" {
		t.Errorf("the link's target changed: %q", got)
	}
	os.Remove(path)
	damaged := "mine\n" + Begin + "\n"
	os.WriteFile(path, []byte(damaged), 0o644)
	if _, err := Write(main, assistants.Claude, testBlock); !errors.Is(err, ErrDamaged) {
		t.Errorf("damaged block: %v", err)
	}
	if got := readFile(t, path); got != damaged {
		t.Errorf("damaged file changed: %q", got)
	}
}

func TestWriteBlockRespectsIgnore(t *testing.T) {
	main, _ := gittest.NewCheckout(t, "")
	os.WriteFile(filepath.Join(main, ".gitignore"), []byte("CLAUDE.local.md\n"), 0o644)
	if _, err := Write(main, assistants.Claude, testBlock); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(filepath.Join(main, ".git", "info", "exclude")); err == nil && strings.Contains(string(data), "/"+assistants.Claude.File) {
		t.Error("info/exclude changed although .gitignore already ignores the file")
	}
	if got := readFile(t, filepath.Join(main, ".gitignore")); got != "CLAUDE.local.md\n" {
		t.Errorf(".gitignore changed: %q", got)
	}
}

// gitremoteCheckout is a checkout's layout for tests that need no git.
func gitremoteCheckout(root string) gitremote.Checkout { return gitremote.Checkout{Root: root} }
