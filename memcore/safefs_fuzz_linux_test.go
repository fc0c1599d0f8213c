//go:build linux

package memcore

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/teammem/teammem/memcore/protocol"
	"github.com/teammem/teammem/memcore/protocol/protocoltest"
)

// FuzzSafeWriteValidKey checks, on Linux, that whatever ValidateKey accepts
// SafeWrite writes inside the memory folder at exactly that key and nowhere
// else, and that whatever it refuses writes nothing. The folder holds a
// symlink "out" leading outside, so keys through it must be refused too.
func FuzzSafeWriteValidKey(f *testing.F) {
	for _, tc := range protocoltest.OrdinaryKeys {
		f.Add(tc.Key)
	}
	for _, tc := range protocoltest.HostileKeys {
		f.Add(tc.Key)
	}
	f.Add("out/x.md")
	// One fixture per fuzzing process: a refused key must leave it as it
	// is, and what a valid key writes is removed after the check.
	base := f.TempDir()
	fx := safeFixture{base: base, dir: filepath.Join(base, "mem"), outside: filepath.Join(base, "outside")}
	for _, d := range []string{fx.dir, fx.outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			f.Fatal(err)
		}
	}
	if err := os.Symlink("../outside", filepath.Join(fx.dir, "out")); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, key string) {
		before := tree(t, fx.base)
		err := SafeWrite(fx.dir, key, []byte("fuzz"))
		valid := protocol.ValidateKey(key) == nil
		through := key == "out" || strings.HasPrefix(key, "out/")
		switch {
		case !valid || through:
			if err == nil {
				t.Fatalf("SafeWrite(%q) = nil for a key it must refuse", key)
			}
			if !valid && !errors.Is(err, protocol.ErrInvalidKey) {
				t.Fatalf("SafeWrite(%q) = %v, want ErrInvalidKey", key, err)
			}
			if diff := cmp.Diff(before, tree(t, fx.base)); diff != "" {
				t.Fatalf("refused key %q changed the tree (-before +after):\n%s", key, diff)
			}
			return
		case err != nil:
			t.Fatalf("SafeWrite(%q) = %v for a valid key", key, err)
		}
		first, _, _ := strings.Cut(key, "/")
		defer os.RemoveAll(filepath.Join(fx.dir, first))
		want := append([]string(nil), before...)
		segs := strings.Split(key, "/")
		for i := range segs[:len(segs)-1] {
			want = append(want, "mem/"+strings.Join(segs[:i+1], "/")+"/")
		}
		want = append(want, "mem/"+key)
		slices.Sort(want)
		want = slices.Compact(want)
		if diff := cmp.Diff(want, tree(t, fx.base)); diff != "" {
			t.Fatalf("SafeWrite(%q) wrote elsewhere (-want +got):\n%s", key, diff)
		}
		if data, err := os.ReadFile(filepath.Join(fx.dir, filepath.FromSlash(key))); err != nil || string(data) != "fuzz" {
			t.Fatalf("read back %q = %q, %v", key, data, err)
		}
	})
}
