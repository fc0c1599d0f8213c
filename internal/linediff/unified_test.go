package linediff

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestUnified(t *testing.T) {
	tests := []struct {
		name, a, b, want string
	}{
		{"equal", "x\n", "x\n", ""},
		{"from nothing", "", "a\nb\n", "--- A\n+++ B\n@@ -0,0 +1,2 @@\n+a\n+b\n"},
		{"to nothing", "a\n", "", "--- A\n+++ B\n@@ -1 +0,0 @@\n-a\n"},
		{"one line changed", "1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\n2\n3\n4\nfive\n6\n7\n8\n9\n",
			"--- A\n+++ B\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n"},
		{"no newline at end", "a\nb", "a\nc",
			"--- A\n+++ B\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n"},
		{"two blocks", "a\n1\n2\n3\n4\n5\n6\n7\n8\nz\n", "A\n1\n2\n3\n4\n5\n6\n7\n8\nZ\nextra\n",
			"--- A\n+++ B\n@@ -1,4 +1,4 @@\n-a\n+A\n 1\n 2\n 3\n@@ -7,4 +7,5 @@\n 6\n 7\n 8\n-z\n+Z\n+extra\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Unified("A", "B", tt.a, tt.b); got != tt.want {
				t.Errorf("Unified =\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

// TestUnifiedPatches checks, where patch(1) is installed, that the
// diff of two texts applied to the first gives the second.
func TestUnifiedPatches(t *testing.T) {
	if _, err := exec.LookPath("patch"); err != nil {
		t.Skip("no patch(1)")
	}
	pairs := [][2]string{
		{"a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\n", "a\nB\nc\nd\ne\nf\ng\nh\nI\nj\nk\nl\n"},
		{strings.Repeat("same\n", 20) + "x\n", "new\n" + strings.Repeat("same\n", 10) + "mid\n" + strings.Repeat("same\n", 10)},
		{"no newline", "no newline\nbut more"},
		{"", "from\nnothing\n"},
	}
	for i, p := range pairs {
		dir := t.TempDir()
		f := filepath.Join(dir, "f.md")
		if err := os.WriteFile(f, []byte(p[0]), 0o600); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("patch", "-s", "-p0", f)
		cmd.Stdin = strings.NewReader(Unified("f.md", "f.md", p[0], p[1]))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("pair %d: patch: %v\n%s", i, err, out)
		}
		if got, _ := os.ReadFile(f); string(got) != p[1] {
			t.Errorf("pair %d: patched = %q; want %q", i, got, p[1])
		}
	}
}
