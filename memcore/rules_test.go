package memcore

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestGlobsMatch(t *testing.T) {
	tests := []struct {
		globs  []string
		target string
		want   bool
	}{
		{[]string{"src/**"}, "/r/src/a/b.go", true},
		{[]string{"src/**"}, "/r/lib/a.go", false},
		{[]string{"*.go"}, "/r/deep/er/x.go", true},
		{[]string{"/top.md"}, "/r/top.md", true},
		{[]string{"/top.md"}, "/r/sub/top.md", false},
		{[]string{"src/*.ts"}, "/r/src/a.ts", true},
		{[]string{"src/*.ts"}, "/r/src/sub/a.ts", false},
		{[]string{"**/*.md"}, "/r/README.md", true},
		{[]string{"docs"}, "/r/docs/a/b.md", true},
		{[]string{"a.go", "!a.go"}, "/r/a.go", false},
		{[]string{"**"}, "/elsewhere/x", false},
		{[]string{"*"}, "/r", false},
	}
	for _, tt := range tests {
		t.Run(tt.target, func(t *testing.T) {
			if got := GlobsMatch(tt.globs, "/r", tt.target); got != tt.want {
				t.Errorf("GlobsMatch(%q, /r, %q) = %v, want %v", tt.globs, tt.target, got, tt.want)
			}
		})
	}
}

func TestExcluderSymlinkedPrefix(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	real := filepath.Join(root, "private", "tmp")
	gMust(t, os.MkdirAll(real, 0o755))
	gMust(t, os.Symlink(real, filepath.Join(root, "tmp")))
	e := newExcluder([]string{filepath.ToSlash(root) + "/tmp/**"}, false)
	for _, tt := range []struct {
		path string
		typ  MemoryType
		want bool
	}{
		{filepath.Join(real, "x", "CLAUDE.md"), Project, true},
		{filepath.Join(root, "tmp", ".hidden", "CLAUDE.md"), Local, true},
		{filepath.Join(real, "CLAUDE.md"), Managed, false},
		{filepath.Join(real, "MEMORY.md"), AutoMem, false},
		{filepath.Join(root, "other", "CLAUDE.md"), User, false},
	} {
		if got := e.excluded(tt.path, tt.typ); got != tt.want {
			t.Errorf("excluded(%s, %s) = %v, want %v", tt.path, tt.typ, got, tt.want)
		}
	}
}

func TestLoadCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Load(ctx, LoadOptions{Env: Env{Cwd: t.TempDir()}})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Load with a cancelled context: err = %v, want context.Canceled", err)
	}
	if _, err := ConditionalRules(ctx, LoadOptions{Env: Env{Cwd: t.TempDir()}}, "x.go"); !errors.Is(err, context.Canceled) {
		t.Errorf("ConditionalRules with a cancelled context: err = %v, want context.Canceled", err)
	}
}

func TestLoadUnreadable(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads files whatever their mode")
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "CLAUDE.md")
	gWrite(t, p, "secret")
	gMust(t, os.Chmod(p, 0))
	res, err := Load(context.Background(), LoadOptions{Env: Env{Cwd: dir}})
	if err != nil || len(res.Files) != 0 || len(res.Diagnostics) != 1 {
		t.Errorf("Load = %+v, %v; want no files and one diagnostic", res, err)
	}
}

func TestIncludeAbsolutePath(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	abs := filepath.Join(root, "repo", "abs target.md")
	gWrite(t, abs, "absolute include")
	gWrite(t, filepath.Join(root, "repo", "CLAUDE.md"), "@"+filepath.ToSlash(filepath.Join(root, "repo", "abs\\ target.md"))+"\n")
	res, err := Load(context.Background(), LoadOptions{Env: Env{Cwd: filepath.Join(root, "repo")}})
	if err != nil || len(res.Files) != 2 || res.Files[1].Path != abs || res.Files[1].Parent == "" {
		t.Errorf("Load = %+v, %v; want CLAUDE.md and its absolute include", res, err)
	}
}
