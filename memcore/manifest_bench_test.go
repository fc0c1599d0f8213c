package memcore

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkManifest lists a memory folder of 250 topic files with
// frontmatter (the manifest keeps the newest 200).
func BenchmarkManifest(b *testing.B) {
	dir := b.TempDir()
	now := time.Now()
	for i := range 250 {
		p := filepath.Join(dir, fmt.Sprintf("topic-%03d.md", i))
		body := fmt.Sprintf("---\nname: Topic %d\ndescription: what topic %d is about\ntype: project\n---\nSome detail.\n", i, i)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
		mtime := now.Add(time.Duration(i) * time.Second)
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		if _, err := Manifest(dir); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSanitizePathLong sanitizes a path over 200 characters (hash
// included).
func BenchmarkSanitizePathLong(b *testing.B) {
	p := "/home/ana/" + fmt.Sprintf("%0300d", 7)
	for b.Loop() {
		_ = SanitizePath(p)
	}
}
