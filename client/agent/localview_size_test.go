package agent

import (
	"io/fs"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestLocalViewStatsBeforeReading: a file over the entry size limit is
// skipped with its size without being read, and a file that grows past
// the limit after the stat is read no further than the limit and a byte.
func TestLocalViewStatsBeforeReading(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"big.md": strings.Repeat("x", 1000), "ok.md": "ok\n"})
	v := newLocalView(ScanOptions{MaxEntryBytes: 100})
	var read []string
	v.read = func(fsys fs.FS, name string) ([]byte, error) {
		read = append(read, name)
		return v.readLimited(fsys, name)
	}
	snap, err := v.snapshot(dir)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"ok.md"}, read); diff != "" {
		t.Errorf("files read (-want +got):\n%s", diff)
	}
	want := []Skip{{Path: "big.md", Reason: "larger than the entry size limit (1000 bytes)"}}
	var got []Skip
	for _, s := range snap.Skipped {
		got = append(got, s.Skip())
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
	data, err := v.readLimited(os.DirFS(dir), "big.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(data) != 101 {
		t.Errorf("readLimited read %d bytes, want 101", len(data))
	}
}

// TestScanDirSkipsOversizeFile: ScanDir reports an over-size file with its
// size and keeps no content for it.
func TestScanDirSkipsOversizeFile(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"big.md": strings.Repeat("y", 300)})
	snap, err := ScanDir(dir, ScanOptions{MaxEntryBytes: 200})
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Skipped) != 1 || snap.Skipped[0].Size != 300 || snap.Skipped[0].Reason != ErrEntryTooLarge {
		t.Errorf("skipped = %v, want big.md too large at 300 bytes", snap.Skipped)
	}
	if _, ok := snap.Contents["big.md"]; ok {
		t.Error("ScanDir kept the over-size file's content")
	}
}
