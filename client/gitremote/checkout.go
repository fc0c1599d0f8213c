package gitremote

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// Checkout is the layout of one git working tree on disk: the main one of a
// repository or a linked worktree (`git worktree add`).
type Checkout struct {
	// Root is the working tree's top folder.
	Root string
	// GitDir is its own git folder: Root/.git, or for a linked worktree the
	// folder its .git file names (<common>/worktrees/<name>), which holds
	// its index.
	GitDir string
	// CommonDir is the git folder all worktrees share; it holds the
	// repository's info/exclude.
	CommonDir string
}

// OpenCheckout reads the layout of the working tree whose top folder is
// root (as FindRepo returns it).
func OpenCheckout(root string) (Checkout, error) {
	c := Checkout{Root: root, GitDir: filepath.Join(root, ".git")}
	fi, err := os.Stat(c.GitDir)
	if err != nil {
		return Checkout{}, fmt.Errorf("open checkout %s: %w: %w", root, ErrNotRepo, err)
	}
	if !fi.IsDir() { // a linked worktree: ".git" holds "gitdir: <path>"
		if c.GitDir, err = readPathFile(c.GitDir, "gitdir: ", root); err != nil {
			return Checkout{}, fmt.Errorf("open checkout %s: %w", root, err)
		}
	}
	c.CommonDir = c.GitDir
	common, err := readPathFile(filepath.Join(c.GitDir, "commondir"), "", c.GitDir)
	switch {
	case err == nil:
		c.CommonDir = common
	case !errors.Is(err, fs.ErrNotExist):
		return Checkout{}, fmt.Errorf("open checkout %s: %w", root, err)
	}
	return c, nil
}

// readPathFile reads a one-line git pointer file (".git" of a worktree,
// "commondir", "gitdir") and returns the path after prefix, made absolute
// against base.
func readPathFile(name, prefix, base string) (string, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return "", err
	}
	line, _, _ := strings.Cut(string(data), "\n")
	p, ok := strings.CutPrefix(strings.TrimSpace(line), prefix)
	if !ok || p == "" {
		return "", fmt.Errorf("%s: not a git pointer file", name)
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(base, p)
	}
	return filepath.Clean(p), nil
}

// Worktrees returns the top folders of every working tree of the
// repository that still exists: the main one (unless the repository is
// bare), then the linked ones in the order of their names.
func (c Checkout) Worktrees() ([]string, error) {
	var roots []string
	if filepath.Base(c.CommonDir) == ".git" {
		roots = append(roots, filepath.Dir(c.CommonDir))
	}
	entries, err := os.ReadDir(filepath.Join(c.CommonDir, "worktrees"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("list worktrees of %s: %w", c.Root, err)
	}
	for _, e := range entries {
		dir := filepath.Join(c.CommonDir, "worktrees", e.Name())
		dotGit, err := readPathFile(filepath.Join(dir, "gitdir"), "", dir)
		if err != nil {
			continue // being created or damaged: not a checkout to write to
		}
		if fi, err := os.Stat(dotGit); err == nil && !fi.IsDir() {
			roots = append(roots, filepath.Dir(dotGit))
		}
	}
	return roots, nil
}

// Tracked reports whether the index of this working tree holds name (a
// slash-separated path relative to Root). A missing index tracks nothing.
func (c Checkout) Tracked(name string) (bool, error) {
	f, err := os.Open(filepath.Join(c.GitDir, "index"))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read the git index of %s: %w", c.Root, err)
	}
	defer f.Close()
	var idx index.Index
	if err := index.NewDecoder(bufio.NewReader(f)).Decode(&idx); err != nil {
		return false, fmt.Errorf("read the git index of %s: %w", c.Root, err)
	}
	_, err = idx.Entry(name)
	return err == nil, nil
}

// ExcludeFile is the repository's info/exclude, shared by all worktrees.
func (c Checkout) ExcludeFile() string { return filepath.Join(c.CommonDir, "info", "exclude") }

// Ignored reports whether git ignores the file name at the top of the
// working tree, by the patterns that can match there: the user's global
// excludes file, the repository's info/exclude and the top .gitignore.
func (c Checkout) Ignored(name string) bool {
	ps, _ := gitignore.LoadGlobalPatterns(osfs.New("/")) // none when unreadable
	for _, file := range []string{c.ExcludeFile(), filepath.Join(c.Root, ".gitignore")} {
		ps = append(ps, readPatterns(file)...)
	}
	return gitignore.NewMatcher(ps).Match(strings.Split(name, "/"), false)
}

// readPatterns parses one ignore file; a file that cannot be read has none.
func readPatterns(name string) []gitignore.Pattern {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil
	}
	var ps []gitignore.Pattern
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSuffix(line, "\r")
		if strings.TrimSpace(line) != "" && !strings.HasPrefix(line, "#") {
			ps = append(ps, gitignore.ParsePattern(line, nil))
		}
	}
	return ps
}
