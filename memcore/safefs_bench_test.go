package memcore

import (
	"bytes"
	"testing"
)

// BenchmarkSafeWrite measures one atomic 4 KiB write, two folders deep; the
// fsyncs dominate, so the figure depends on the file system.
func BenchmarkSafeWrite(b *testing.B) {
	dir := b.TempDir()
	data := bytes.Repeat([]byte("memory line\n"), 4096/12)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if err := SafeWrite(dir, "notes/2026/topic.md", data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSafeRead measures the checks and read of one 4 KiB file.
func BenchmarkSafeRead(b *testing.B) {
	dir := b.TempDir()
	data := bytes.Repeat([]byte("memory line\n"), 4096/12)
	if err := SafeWrite(dir, "notes/2026/topic.md", data); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := SafeRead(dir, "notes/2026/topic.md"); err != nil {
			b.Fatal(err)
		}
	}
}
