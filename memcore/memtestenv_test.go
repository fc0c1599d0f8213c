package memcore

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// testEnv returns an Env over a fresh temporary home, managed dir and working
// directory, with the environment vars given.
func memTestEnv(t *testing.T, vars map[string]string) Env {
	t.Helper()
	root := t.TempDir()
	env := Env{
		Home:       filepath.Join(root, "home"),
		ManagedDir: filepath.Join(root, "managed"),
		Cwd:        filepath.Join(root, "work"),
		Getenv:     func(k string) string { return vars[k] },
		Now:        func() time.Time { return time.Date(2026, 3, 31, 22, 30, 0, 0, time.Local) },
	}
	for _, d := range []string{env.Home, env.ManagedDir, env.Cwd} {
		memMkdir(t, d)
	}
	return env
}

// mustMkdir creates a folder and its parents.
func memMkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

// mustWrite writes a file, creating its folder.
func memWrite(t *testing.T, path, content string) {
	t.Helper()
	memMkdir(t, filepath.Dir(path))
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// pathSep is the path separator as a string.
const pathSep = string(filepath.Separator)
