package atomicfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// names lists dir's entries.
func names(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

func TestWriteReplaces(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.json")
	for _, content := range []string{"one", "two, longer"} {
		if err := Write(path, 0o600, Bytes([]byte(content))); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != content {
			t.Fatalf("read %q, %v; want %q", got, err, content)
		}
	}
	fi, _ := os.Stat(path)
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
	if n := names(t, dir); len(n) != 1 {
		t.Errorf("folder holds %v, want only f.json", n)
	}
}

func TestWriteFailureKeepsOldAndLeavesNoTemp(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := Write(path, 0o644, Bytes([]byte("old"))); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := Write(path, 0o644, func(w io.Writer) error {
		io.WriteString(w, "half")
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "old" {
		t.Errorf("content %q after a failed write, want old", got)
	}
	if n := names(t, dir); len(n) != 1 {
		t.Errorf("folder holds %v after a failed write", n)
	}
}

func TestCreateNeverReplaces(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "key")
	if err := Create(path, 0o600, Bytes([]byte("first"))); err != nil {
		t.Fatal(err)
	}
	err := Create(path, 0o600, Bytes([]byte("second")))
	if !errors.Is(err, fs.ErrExist) {
		t.Fatalf("second Create: %v, want fs.ErrExist", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "first" {
		t.Errorf("content %q, want first", got)
	}
	for _, n := range names(t, dir) {
		if strings.HasPrefix(n, TempPrefix) {
			t.Errorf("temporary file %s left", n)
		}
	}
}

func TestWriteInSubfolderOfRoot(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	name := filepath.Join("sub", "a.md")
	if err := WriteIn(root, name, 0o644, Bytes([]byte("x"))); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, name)); string(got) != "x" {
		t.Errorf("got %q", got)
	}
	if err := WriteIn(root, filepath.Join("..", "escape"), 0o644, Bytes(nil)); err == nil {
		t.Error("WriteIn left the root")
	}
}
