package gitremote_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/teammem/teammem/client/gitremote"
	"github.com/teammem/teammem/testkit/gittest"
)

// newRepoWithWorktree makes a repository with one commit and an
// untracked CLAUDE.local.md, and a linked worktree; it returns both top
// folders.
func newRepoWithWorktree(t *testing.T) (main, linked string) {
	t.Helper()
	main, linked = gittest.NewCheckout(t, "")
	os.WriteFile(filepath.Join(main, "CLAUDE.local.md"), []byte("untracked\n"), 0o644)
	return main, linked
}

func TestCheckoutLayout(t *testing.T) {
	main, linked := newRepoWithWorktree(t)
	m, err := gitremote.OpenCheckout(main)
	if err != nil {
		t.Fatal(err)
	}
	l, err := gitremote.OpenCheckout(linked)
	if err != nil {
		t.Fatal(err)
	}
	samePath(t, m.CommonDir, filepath.Join(main, ".git"))
	samePath(t, l.CommonDir, filepath.Join(main, ".git"))
	samePath(t, l.GitDir, filepath.Join(main, ".git", "worktrees", "api-feature"))
	samePath(t, l.ExcludeFile(), filepath.Join(main, ".git", "info", "exclude"))
	for _, c := range []gitremote.Checkout{m, l} {
		roots, err := c.Worktrees()
		if err != nil || len(roots) != 2 {
			t.Fatalf("Worktrees of %s = %v, %v", c.Root, roots, err)
		}
		samePath(t, roots[0], main)
		samePath(t, roots[1], linked)
	}
	os.RemoveAll(linked) // removed by hand: no longer listed
	if roots, _ := m.Worktrees(); len(roots) != 1 {
		t.Errorf("a deleted worktree is still listed: %v", roots)
	}
}

func TestCheckoutTracked(t *testing.T) {
	main, linked := newRepoWithWorktree(t)
	m, _ := gitremote.OpenCheckout(main)
	l, _ := gitremote.OpenCheckout(linked)
	for _, c := range []gitremote.Checkout{m, l} {
		if tr, err := c.Tracked("README.md"); err != nil || !tr {
			t.Errorf("%s: README.md tracked = %v, %v", c.Root, tr, err)
		}
		if tr, err := c.Tracked("CLAUDE.local.md"); err != nil || tr {
			t.Errorf("%s: untracked CLAUDE.local.md tracked = %v, %v", c.Root, tr, err)
		}
	}
	gittest.Run(t, main, "add", "CLAUDE.local.md")
	if tr, _ := m.Tracked("CLAUDE.local.md"); !tr {
		t.Error("a staged CLAUDE.local.md is not tracked")
	}
	if tr, _ := l.Tracked("CLAUDE.local.md"); tr {
		t.Error("the linked worktree's own index was not the one read")
	}
}

func TestCheckoutIgnored(t *testing.T) {
	main, linked := newRepoWithWorktree(t)
	m, _ := gitremote.OpenCheckout(main)
	l, _ := gitremote.OpenCheckout(linked)
	if m.Ignored("CLAUDE.local.md") || l.Ignored("CLAUDE.local.md") {
		t.Fatal("ignored before any pattern")
	}
	os.WriteFile(filepath.Join(linked, ".gitignore"), []byte("*.local.md\n"), 0o644)
	if !l.Ignored("CLAUDE.local.md") || m.Ignored("CLAUDE.local.md") {
		t.Error("the worktree's own .gitignore is not the one read")
	}
	os.WriteFile(filepath.Join(linked, ".gitignore"), []byte("*.local.md\n!CLAUDE.local.md\n"), 0o644)
	if l.Ignored("CLAUDE.local.md") {
		t.Error("a negated pattern still ignores")
	}
	os.MkdirAll(filepath.Dir(m.ExcludeFile()), 0o755)
	os.WriteFile(m.ExcludeFile(), []byte("# comment\n/CLAUDE.local.md\n"), 0o644)
	if !m.Ignored("CLAUDE.local.md") {
		t.Error("info/exclude not read")
	}
	if st := gittest.Run(t, main, "status", "--porcelain"); strings.Contains(st, "CLAUDE.local.md") {
		t.Errorf("git disagrees: %s", st)
	}
}

func TestCheckoutHeadFiles(t *testing.T) {
	main, linked := newRepoWithWorktree(t)
	m, _ := gitremote.OpenCheckout(main)
	l, _ := gitremote.OpenCheckout(linked)
	branch := strings.TrimSpace(gittest.Run(t, main, "symbolic-ref", "HEAD"))
	files := m.HeadFiles()
	if len(files) != 3 {
		t.Fatalf("HeadFiles of the main checkout = %q", files)
	}
	samePath(t, files[0], filepath.Join(main, ".git", "HEAD"))
	samePath(t, files[1], filepath.Join(main, ".git", filepath.FromSlash(branch)))
	if files[2] != filepath.Join(m.CommonDir, "packed-refs") {
		t.Errorf("HeadFiles[2] = %s; want the packed-refs", files[2])
	}
	lf := l.HeadFiles()
	if len(lf) != 3 {
		t.Fatalf("HeadFiles of the linked worktree = %q", lf)
	}
	samePath(t, lf[0], filepath.Join(main, ".git", "worktrees", "api-feature", "HEAD"))
	samePath(t, filepath.Dir(lf[1]), filepath.Join(main, ".git", "refs", "heads"))

	// A commit rewrites one of them.
	stamp := func(files []string) string {
		var b strings.Builder
		for _, f := range files {
			if fi, err := os.Stat(f); err == nil {
				b.WriteString(fi.ModTime().String() + " ")
			}
		}
		return b.String()
	}
	before := stamp(files)
	gittest.Run(t, main, "commit", "-q", "--allow-empty", "-m", "more")
	if stamp(m.HeadFiles()) == before {
		t.Error("a commit changed none of the HEAD files")
	}

	gittest.Run(t, main, "checkout", "-q", "--detach")
	if files := m.HeadFiles(); len(files) != 1 {
		t.Errorf("HeadFiles of a detached HEAD = %q; want HEAD alone", files)
	}
}
