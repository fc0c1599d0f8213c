//go:build unix

package memcore

import (
	"context"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A User file may include anything outside the project; devices and pipes
// must neither hang the load nor exhaust memory.
func TestLoadHostileIncludes(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(root, "home")
	fifo := filepath.Join(home, "pipe")
	gWrite(t, filepath.Join(home, ".claude", "CLAUDE.md"), "@/dev/zero @~/pipe @~/pipe.md\n")
	gMust(t, syscall.Mkfifo(fifo, 0o600))
	gMust(t, syscall.Mkfifo(fifo+".md", 0o600))
	res, err := Load(context.Background(), LoadOptions{Env: Env{Home: home, Cwd: root}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range res.Files {
		got = append(got, strings.TrimPrefix(f.Path, root))
	}
	if diff := cmp.Diff([]string{"/home/.claude/CLAUDE.md", "/home/pipe", "/home/pipe.md"}, got); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	if len(res.Diagnostics) != 1 || res.Diagnostics[0].Path != "/dev/zero" || !strings.Contains(res.Diagnostics[0].Message, "binary") {
		t.Errorf("diagnostics = %+v, want one binary-content diagnostic for /dev/zero", res.Diagnostics)
	}
}
