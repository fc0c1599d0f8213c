package gitremote

import (
	"os"
	"path"
	"path/filepath"
	"strings"
)

// HeadFiles returns the files whose change moves the working tree's HEAD:
// its own HEAD and, when HEAD names a branch, that branch's loose
// reference and the repository's packed-refs (a commit, a checkout, a
// reset or a revert rewrites one of them). A HEAD that cannot be read is
// listed alone: its change is what to wait for.
func (c Checkout) HeadFiles() []string {
	head := filepath.Join(c.GitDir, "HEAD")
	files := []string{head}
	data, err := os.ReadFile(head)
	if err != nil {
		return files
	}
	line, _, _ := strings.Cut(string(data), "\n")
	ref, ok := strings.CutPrefix(strings.TrimSpace(line), "ref: ")
	if !ok || !strings.HasPrefix(ref, "refs/") || path.Clean(ref) != ref {
		return files // detached: HEAD holds the commit itself
	}
	return append(files, filepath.Join(c.CommonDir, filepath.FromSlash(ref)), filepath.Join(c.CommonDir, "packed-refs"))
}
