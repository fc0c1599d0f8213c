package memcore

import (
	"path/filepath"
	"strings"
	"testing"
)

// FuzzValidateMemoryPath checks that whatever ValidateMemoryPath accepts is
// absolute, clean, ends with one separator, holds no NUL, is no UNC path and
// no filesystem root.
func FuzzValidateMemoryPath(f *testing.F) {
	for _, s := range []string{"/srv/mem", "~/mem", "~/..", "//server/share", `\\server\share`, "C:\\", "/", "rel", "/a\x00b", "~/../../etc", "/srv/./x/../y//"} {
		f.Add(s)
	}
	home := filepath.Join(string(filepath.Separator), "home", "ana")
	f.Fuzz(func(t *testing.T, p string) {
		got, err := ValidateMemoryPath(p, home)
		if err != nil {
			return
		}
		body := strings.TrimSuffix(got, string(filepath.Separator))
		switch {
		case !filepath.IsAbs(got):
			t.Fatalf("%q accepted as %q: not absolute", p, got)
		case !strings.HasSuffix(got, string(filepath.Separator)) || strings.HasSuffix(body, string(filepath.Separator)):
			t.Fatalf("%q accepted as %q: not exactly one trailing separator", p, got)
		case strings.ContainsRune(got, 0) || isUNC(got):
			t.Fatalf("%q accepted as %q: NUL or UNC", p, got)
		case filepath.Clean(body) != body || filepath.Dir(body) == body:
			t.Fatalf("%q accepted as %q: not clean, or a root", p, got)
		}
	})
}
