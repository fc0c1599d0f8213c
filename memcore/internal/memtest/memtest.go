// Package memtest holds the test fixtures memcore and its subpackages share:
// a fresh temporary tree (home, managed policy folder, working directory), a
// fixed clock, and helpers that make folders and files or fail the test. It
// does not import memcore, so memcore's own tests can use it; each package
// builds its memcore.Env from a Tree.
package memtest

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Tree is a fresh temporary home, managed policy folder and working
// directory, all created.
type Tree struct {
	Home, ManagedDir, Cwd string
}

// NewTree creates a Tree under t.TempDir().
func NewTree(t testing.TB) Tree {
	t.Helper()
	root := t.TempDir()
	tr := Tree{
		Home:       filepath.Join(root, "home"),
		ManagedDir: filepath.Join(root, "managed"),
		Cwd:        filepath.Join(root, "work"),
	}
	for _, d := range []string{tr.Home, tr.ManagedDir, tr.Cwd} {
		Mkdir(t, d)
	}
	return tr
}

// Getenv returns a lookup over vars (nil is an empty environment).
func Getenv(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

// Clock is the tests' fixed clock: 2026-03-31 22:30 local time.
func Clock() time.Time { return time.Date(2026, 3, 31, 22, 30, 0, 0, time.Local) }

// Mkdir creates a folder and its parents.
func Mkdir(t testing.TB, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

// Write writes a file, creating its folder.
func Write(t testing.TB, path, content string) {
	t.Helper()
	Mkdir(t, filepath.Dir(path))
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
