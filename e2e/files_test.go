//go:build unix

package e2e

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/teammem/teammem/memcore"
)

// write writes a file below dir, creating folders.
func write(t testing.TB, dir, key, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(key))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// read returns a file's content, or "\x00absent" when it does not exist.
func read(dir, key string) string {
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(key)))
	if err != nil {
		return absent
	}
	return string(data)
}

// absent is what read returns for a missing file.
const absent = "\x00absent"

// files returns every regular file below dir (slash paths → content).
func files(t testing.TB, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			rel, _ := filepath.Rel(dir, p)
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[filepath.ToSlash(rel)] = string(data)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// tempFiles returns the paths below dir that are memcore temporary files.
func tempFiles(t testing.TB, dir string) []string {
	var out []string
	for p := range files(t, dir) {
		if memcore.IsTempName(p) {
			out = append(out, p)
		}
	}
	return out
}

// conflictCopies returns the conflict copies below dir (path → content).
func conflictCopies(t testing.TB, dir string) map[string]string {
	out := map[string]string{}
	for p, c := range files(t, dir) {
		if strings.Contains(p, ".conflict-") {
			out[p] = c
		}
	}
	return out
}

// lines makes a text of n numbered lines, with line i replaced by
// edits[i] where given.
func lines(n int, edits map[int]string) string {
	var b strings.Builder
	for i := range n {
		if e, ok := edits[i]; ok {
			b.WriteString(e + "\n")
			continue
		}
		b.WriteString("line " + string(rune('a'+i)) + " of the shared notes\n")
	}
	return b.String()
}
