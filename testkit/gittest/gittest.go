// Package gittest runs the real git for tests, without the user's or the
// system's configuration, and makes the checkouts the tests work in.
package gittest

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Run runs git with args in dir and returns its combined output; a
// failure fails the test.
func Run(t testing.TB, dir string, args ...string) string {
	t.Helper()
	return RunInput(t, dir, nil, args...)
}

// RunInput is Run with stdin as git's standard input (git fast-import
// builds a large fixture repository in a second).
func RunInput(t testing.TB, dir string, stdin io.Reader, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Stdin = stdin
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=test", "GIT_AUTHOR_EMAIL=test@example.com", "GIT_COMMITTER_NAME=test", "GIT_COMMITTER_EMAIL=test@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v in %s: %v\n%s", args, dir, err, out)
	}
	return string(out)
}

// NewCheckout makes a repository with one commit (README.md) in a new
// temporary folder, with the origin remote when remote is not "", and a
// linked worktree beside it on branch feature; it returns both top
// folders.
func NewCheckout(t testing.TB, remote string) (main, linked string) {
	t.Helper()
	base := t.TempDir()
	main, linked = filepath.Join(base, "api"), filepath.Join(base, "api-feature")
	if err := os.MkdirAll(main, 0o755); err != nil {
		t.Fatal(err)
	}
	Run(t, main, "init", "-q", "-b", "main")
	if remote != "" {
		Run(t, main, "remote", "add", "origin", remote)
	}
	if err := os.WriteFile(filepath.Join(main, "README.md"), []byte("# api\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	Run(t, main, "add", "README.md")
	Run(t, main, "commit", "-q", "-m", "first")
	Run(t, main, "worktree", "add", "-q", "-b", "feature", linked)
	return main, linked
}

// Tree returns the working tree at dir as it is on disk, .git aside: every
// file's content by its slash path, every folder by its path and a final
// slash (mapped to ""), every symbolic link by its path and its target
// after "-> ". Two trees compare equal when the checkout is the same byte
// for byte.
func Tree(t testing.TB, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		switch {
		case rel == ".":
			return nil
		case rel == ".git":
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		case d.Type()&os.ModeSymlink != 0:
			target, err := os.Readlink(p)
			out[rel] = "-> " + target
			return err
		case d.IsDir():
			out[rel+"/"] = ""
			return nil
		}
		data, err := os.ReadFile(p)
		out[rel] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
