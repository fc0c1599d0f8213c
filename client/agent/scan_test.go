package agent

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/teammem/teammem/memcore/protocol"
)

func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestScanDir(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"MEMORY.md":                        "index\n",
		"notes/db.md":                      "db\n",
		"notes/list.TXT":                   "t\n",
		"notes/img.png":                    "png",
		".hidden.md":                       "h",
		".git/x.md":                        "g",
		"notes/.x/y.md":                    "y",
		"a.md.swp":                         "swap",
		"a.md~":                            "backup",
		"4913":                             "",
		"a.conflict-20260101T000000Z-h.md": "c",
		"big.md":                           string(make([]byte, 20)),
		"bad.md":                           "\xff",
	})
	if err := os.Symlink(filepath.Join(dir, "MEMORY.md"), filepath.Join(dir, "link.md")); err != nil {
		t.Fatal(err)
	}
	snap, err := ScanDir(dir, ScanOptions{MaxEntryBytes: 10})
	if err != nil {
		t.Fatal(err)
	}
	wantContents := map[string]string{"MEMORY.md": "index\n", "notes/db.md": "db\n", "notes/list.TXT": "t\n", "notes/.x/y.md": "y"}
	if diff := cmp.Diff(wantContents, snap.Contents); diff != "" {
		t.Errorf("contents (-want +got):\n%s", diff)
	}
	if got := snap.Checksums["MEMORY.md"]; got != protocol.EntryChecksum([]byte("index\n")) {
		t.Errorf("checksum = %s", got)
	}
	var skipped []string
	for _, s := range snap.Skipped {
		skipped = append(skipped, s.Key+": "+s.Reason.Error())
	}
	want := []string{"bad.md: " + ErrNotUTF8.Error(), "big.md: " + ErrEntryTooLarge.Error(), "link.md: " + ErrNotRegular.Error()}
	if diff := cmp.Diff(want, skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
	if got := snap.SkippedKeys(); !got["bad.md"] || !got["big.md"] || !got["link.md"] || len(got) != 3 {
		t.Errorf("SkippedKeys = %v", got)
	}
}

func TestScanDirUnavailable(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name  string
		setup func(t *testing.T) string
	}{
		{"missing", func(t *testing.T) string { return filepath.Join(dir, "nope") }},
		{"a file, not a folder", func(t *testing.T) string {
			p := filepath.Join(dir, "file")
			os.WriteFile(p, nil, 0o644)
			return p
		}},
		{"unreadable subfolder", func(t *testing.T) string {
			if os.Geteuid() == 0 {
				t.Skip("root reads everything")
			}
			d := t.TempDir()
			writeTree(t, d, map[string]string{"a.md": "a", "sub/b.md": "b"})
			os.Chmod(filepath.Join(d, "sub"), 0)
			t.Cleanup(func() { os.Chmod(filepath.Join(d, "sub"), 0o755) })
			return d
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			snap, err := ScanDir(tt.setup(t), ScanOptions{})
			if !errors.Is(err, ErrFolderUnavailable) || snap != nil {
				t.Errorf("ScanDir = %v, %v; want ErrFolderUnavailable", snap, err)
			}
		})
	}
}
