package memcore

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/teammem/teammem/memcore/protocol"
	"github.com/teammem/teammem/memcore/protocol/protocoltest"
)

// safeFixture is a memory folder and a folder outside it, side by side.
type safeFixture struct {
	base, dir, outside string
}

func newSafeFixture(t *testing.T) safeFixture {
	t.Helper()
	base := t.TempDir()
	f := safeFixture{base: base, dir: filepath.Join(base, "mem"), outside: filepath.Join(base, "outside")}
	for _, d := range []string{f.dir, f.outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// tree lists the files and folders below root as slash paths ("d/" for a
// folder, "l@" for a symlink).
func tree(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == root {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			rel += "@"
		case d.IsDir():
			rel += "/"
		}
		out = append(out, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

func mustWrite(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestSafeWriteReadRemove(t *testing.T) {
	f := newSafeFixture(t)
	key := "decisions/2026/db choice.md"
	if err := SafeWrite(f.dir, key, []byte("old")); err != nil {
		t.Fatal(err)
	}
	if err := SafeWrite(f.dir, key, []byte("new")); err != nil {
		t.Fatal(err)
	}
	got, err := SafeRead(f.dir, key)
	if err != nil || string(got) != "new" {
		t.Fatalf("SafeRead = %q, %v; want new", got, err)
	}
	if diff := cmp.Diff([]string{"decisions/", "decisions/2026/", "decisions/2026/db choice.md"}, tree(t, f.dir)); diff != "" {
		t.Fatalf("tree (-want +got):\n%s", diff)
	}
	if err := SafeRemove(f.dir, key); err != nil {
		t.Fatal(err)
	}
	if _, err := SafeRead(f.dir, key); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("SafeRead after remove = %v, want fs.ErrNotExist", err)
	}
	if err := SafeRemove(f.dir, key); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("second SafeRemove = %v, want fs.ErrNotExist", err)
	}
}

func TestSafeWritePerm(t *testing.T) {
	f := newSafeFixture(t)
	if err := SafeWriteWith(f.dir, "private.md", []byte("x"), WriteOptions{Perm: 0o600}); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(f.dir, "private.md"))
	if err != nil {
		t.Fatal(err)
	}
	if perm := fi.Mode().Perm(); perm != 0o600 {
		t.Fatalf("perm = %v, want 0600", perm)
	}
}

func TestSafeFSRefusesHostileKeys(t *testing.T) {
	f := newSafeFixture(t)
	mustWrite(t, filepath.Join(f.outside, "x.md"), "secret")
	for _, tc := range protocoltest.HostileKeys {
		t.Run(tc.Name, func(t *testing.T) {
			if err := SafeWrite(f.dir, tc.Key, []byte("pwned")); !errors.Is(err, protocol.ErrInvalidKey) {
				t.Errorf("SafeWrite = %v, want protocol.ErrInvalidKey", err)
			}
			if _, err := SafeRead(f.dir, tc.Key); !errors.Is(err, protocol.ErrInvalidKey) {
				t.Errorf("SafeRead = %v, want protocol.ErrInvalidKey", err)
			}
			if err := SafeRemove(f.dir, tc.Key); !errors.Is(err, protocol.ErrInvalidKey) {
				t.Errorf("SafeRemove = %v, want protocol.ErrInvalidKey", err)
			}
		})
	}
	if diff := cmp.Diff([]string{"mem/", "outside/", "outside/x.md"}, tree(t, f.base)); diff != "" {
		t.Fatalf("hostile keys changed the tree (-want +got):\n%s", diff)
	}
}

func TestSafeFSRefusesSymlinks(t *testing.T) {
	tests := []struct {
		name  string
		plant func(f safeFixture) error // plants links below f.dir
		key   string
	}{
		{"absolute folder link out", func(f safeFixture) error {
			return os.Symlink(f.outside, filepath.Join(f.dir, "sub"))
		}, "sub/x.md"},
		{"relative folder link out", func(f safeFixture) error {
			return os.Symlink("../outside", filepath.Join(f.dir, "sub"))
		}, "sub/x.md"},
		{"deep link out, missing below", func(f safeFixture) error {
			os.Mkdir(filepath.Join(f.dir, "a"), 0o755)
			return os.Symlink("../../outside", filepath.Join(f.dir, "a", "b"))
		}, "a/b/c/d/x.md"},
		{"final component to outside", func(f safeFixture) error {
			return os.Symlink(filepath.Join(f.outside, "x.md"), filepath.Join(f.dir, "x.md"))
		}, "x.md"},
		{"final component inside", func(f safeFixture) error {
			mustWriteErr := os.WriteFile(filepath.Join(f.dir, "real.md"), []byte("r"), 0o644)
			return errors.Join(mustWriteErr, os.Symlink("real.md", filepath.Join(f.dir, "x.md")))
		}, "x.md"},
		{"dangling folder link", func(f safeFixture) error {
			return os.Symlink("nowhere", filepath.Join(f.dir, "sub"))
		}, "sub/x.md"},
		{"dangling final link", func(f safeFixture) error {
			return os.Symlink(filepath.Join(f.outside, "new.md"), filepath.Join(f.dir, "x.md"))
		}, "x.md"},
		{"link out and back in", func(f safeFixture) error {
			return os.Symlink("../outside/../mem/../outside", filepath.Join(f.dir, "sub"))
		}, "sub/x.md"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newSafeFixture(t)
			mustWrite(t, filepath.Join(f.outside, "x.md"), "secret")
			if err := tc.plant(f); err != nil {
				t.Fatal(err)
			}
			before := tree(t, f.base)
			if err := SafeWrite(f.dir, tc.key, []byte("pwned")); !errors.Is(err, ErrUnsafePath) {
				t.Errorf("SafeWrite = %v, want ErrUnsafePath", err)
			}
			if _, err := SafeRead(f.dir, tc.key); !errors.Is(err, ErrUnsafePath) {
				t.Errorf("SafeRead = %v, want ErrUnsafePath", err)
			}
			if err := SafeRemove(f.dir, tc.key); !errors.Is(err, ErrUnsafePath) {
				t.Errorf("SafeRemove = %v, want ErrUnsafePath", err)
			}
			if diff := cmp.Diff(before, tree(t, f.base)); diff != "" {
				t.Errorf("tree changed (-before +after):\n%s", diff)
			}
			if b, _ := os.ReadFile(filepath.Join(f.outside, "x.md")); string(b) != "secret" {
				t.Errorf("outside file now %q", b)
			}
		})
	}
}

func TestSafeWriteFollowsLinksThatStayInside(t *testing.T) {
	f := newSafeFixture(t)
	if err := os.Mkdir(filepath.Join(f.dir, "real"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real", filepath.Join(f.dir, "alias")); err != nil {
		t.Fatal(err)
	}
	if err := SafeWrite(f.dir, "alias/x.md", []byte("in")); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(f.dir, "real", "x.md")); err != nil || string(b) != "in" {
		t.Fatalf("real/x.md = %q, %v", b, err)
	}
}

func TestSafeFSRefusesAbsoluteLinksInside(t *testing.T) {
	// os.Root follows relative symlinks only; an absolute one that stays
	// inside is refused during the check, with a message that says why.
	f := newSafeFixture(t)
	if err := os.Mkdir(filepath.Join(f.dir, "real"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(f.dir, "real"), filepath.Join(f.dir, "alias")); err != nil {
		t.Skipf("cannot create symlinks here: %v", err)
	}
	for op, err := range map[string]error{
		"write":  SafeWrite(f.dir, "alias/x.md", []byte("in")),
		"read":   func() error { _, err := SafeRead(f.dir, "alias/x.md"); return err }(),
		"remove": SafeRemove(f.dir, "alias/x.md"),
	} {
		if !errors.Is(err, ErrUnsafePath) || !strings.Contains(fmt.Sprint(err), `absolute symlink "alias"`) {
			t.Errorf("%s through an absolute symlink: err = %v, want ErrUnsafePath naming the absolute symlink", op, err)
		}
	}
}

func TestSafeWriteThroughLinkedDir(t *testing.T) {
	f := newSafeFixture(t)
	link := filepath.Join(f.base, "link-to-mem")
	if err := os.Symlink(f.dir, link); err != nil {
		t.Fatal(err)
	}
	if err := SafeWrite(link, "a/x.md", []byte("via link")); err != nil {
		t.Fatal(err)
	}
	if b, err := SafeRead(link, "a/x.md"); err != nil || string(b) != "via link" {
		t.Fatalf("SafeRead = %q, %v", b, err)
	}
	if b, err := os.ReadFile(filepath.Join(f.dir, "a", "x.md")); err != nil || string(b) != "via link" {
		t.Fatalf("mem/a/x.md = %q, %v", b, err)
	}
}

func TestSafeWriteMissingDir(t *testing.T) {
	f := newSafeFixture(t)
	if err := SafeWrite(filepath.Join(f.base, "nope"), "x.md", nil); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("SafeWrite into a missing folder = %v, want fs.ErrNotExist", err)
	}
}

func TestSafeWriteFailureLeavesNoTemp(t *testing.T) {
	f := newSafeFixture(t)
	if err := os.MkdirAll(filepath.Join(f.dir, "a", "x.md", "inner"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := SafeWrite(f.dir, "a/x.md", []byte("data")); err == nil {
		t.Fatal("SafeWrite over a folder succeeded")
	}
	if diff := cmp.Diff([]string{"a/", "a/x.md/", "a/x.md/inner/"}, tree(t, f.dir)); diff != "" {
		t.Fatalf("tree (-want +got):\n%s", diff)
	}
}

func TestSafeReadRefusesNonRegular(t *testing.T) {
	f := newSafeFixture(t)
	if err := os.Mkdir(filepath.Join(f.dir, "d.md"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := SafeRead(f.dir, "d.md"); err == nil {
		t.Fatal("SafeRead of a folder succeeded")
	}
	if err := SafeRemove(f.dir, "d.md"); err == nil {
		t.Fatal("SafeRemove of a folder succeeded")
	}
}
