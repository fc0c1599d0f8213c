package agent

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// old is a modification time well outside the racy window.
var old = time.Now().Add(-time.Hour)

// writeOld writes files and dates them an hour back, so that their scans
// are trusted.
func writeOld(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	writeTree(t, dir, files)
	for name := range files {
		if err := os.Chtimes(filepath.Join(dir, filepath.FromSlash(name)), old, old); err != nil {
			t.Fatal(err)
		}
	}
}

// keepingView returns a view that keeps contents, as ScanDir's does, so
// that its snapshots compare with ScanDir's.
func keepingView() *localView {
	v := newLocalView(ScanOptions{})
	v.keep = true
	return v
}

// mustSnapshot refreshes v and fails the test on error.
func mustSnapshot(t *testing.T, v *localView, dir string) *Snapshot {
	t.Helper()
	snap, err := v.snapshot(dir)
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// checkLikeScanDir fails unless snap equals a fresh ScanDir of dir.
func checkLikeScanDir(t *testing.T, dir string, snap *Snapshot) {
	t.Helper()
	want, err := ScanDir(dir, ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, snap, cmpopts.EquateEmpty(),
		cmp.Transformer("skip", func(e *SkipError) Skip { return e.Skip() })); diff != "" {
		t.Errorf("snapshot differs from a fresh scan (-want +got):\n%s", diff)
	}
}

// TestLocalViewReadsOnlyChangedFiles: a refresh reads again only the files
// whose size, times or inode changed, and those modified too recently to
// trust their times.
func TestLocalViewReadsOnlyChangedFiles(t *testing.T) {
	tests := []struct {
		name   string
		change func(t *testing.T, dir string)
		reads  int
	}{
		{"nothing", func(*testing.T, string) {}, 0},
		{"same size, other content, older time", func(t *testing.T, dir string) {
			writeTree(t, dir, map[string]string{"a.md": "A\n"})
			os.Chtimes(filepath.Join(dir, "a.md"), old.Add(-time.Hour), old.Add(-time.Hour))
		}, 1},
		{"renamed over, same size and time", func(t *testing.T, dir string) {
			writeOld(t, dir, map[string]string{"new.tmp": "B\n"})
			if err := os.Rename(filepath.Join(dir, "new.tmp"), filepath.Join(dir, "b.md")); err != nil {
				t.Fatal(err)
			}
		}, 1},
		{"written just now", func(t *testing.T, dir string) {
			writeTree(t, dir, map[string]string{"a.md": "A\n"})
		}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeOld(t, dir, map[string]string{"a.md": "a\n", "sub/b.md": "b\n", "b.md": "b\n"})
			v := keepingView()
			mustSnapshot(t, v, dir)
			tt.change(t, dir)
			v.reads = 0
			snap := mustSnapshot(t, v, dir)
			if v.reads != tt.reads {
				t.Errorf("read %d files, want %d", v.reads, tt.reads)
			}
			checkLikeScanDir(t, dir, snap)
		})
	}
}

// TestLocalViewRacyFileIsReadAgain: a file scanned within the racy window
// is read again by the next refresh, even with the same size and times.
func TestLocalViewRacyFileIsReadAgain(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"a.md": "a\n"})
	v := keepingView()
	mustSnapshot(t, v, dir)
	v.reads = 0
	mustSnapshot(t, v, dir)
	if v.reads != 1 {
		t.Errorf("read %d files, want the racy one again", v.reads)
	}
}

// TestLocalViewChangedPaths: with a watcher reporting changes, a refresh
// looks only at the paths reported, and ends equal to a full scan.
func TestLocalViewChangedPaths(t *testing.T) {
	tests := []struct {
		name   string
		change func(t *testing.T, dir string) []string // the paths reported
		reads  int
	}{
		{"new file", func(t *testing.T, dir string) []string {
			writeOld(t, dir, map[string]string{"n.md": "n\n"})
			return []string{"n.md"}
		}, 1},
		{"edited file", func(t *testing.T, dir string) []string {
			writeOld(t, dir, map[string]string{"a.md": "edited\n"})
			return []string{"a.md"}
		}, 1},
		{"deleted file", func(t *testing.T, dir string) []string {
			os.Remove(filepath.Join(dir, "a.md"))
			return []string{"a.md"}
		}, 0},
		{"new folder", func(t *testing.T, dir string) []string {
			writeOld(t, dir, map[string]string{"new/x.md": "x\n", "new/deep/y.md": "y\n"})
			return []string{"new"}
		}, 2},
		{"deleted folder", func(t *testing.T, dir string) []string {
			os.RemoveAll(filepath.Join(dir, "sub"))
			return []string{"sub"}
		}, 0},
		{"folder replaced by a file", func(t *testing.T, dir string) []string {
			os.RemoveAll(filepath.Join(dir, "sub"))
			writeOld(t, dir, map[string]string{"sub": "not a candidate\n"})
			return []string{"sub", "sub/b.md"}
		}, 0},
		{"hidden, symlinked and non-candidate paths", func(t *testing.T, dir string) []string {
			writeOld(t, dir, map[string]string{".git/x.md": "h\n", ".x.md": "h\n", "x.bin": "b\n"})
			os.Symlink(filepath.Join(dir, "sub"), filepath.Join(dir, "link"))
			os.Symlink(filepath.Join(dir, "a.md"), filepath.Join(dir, "l.md"))
			return []string{".git/x.md", ".x.md", "x.bin", "link", "link/b.md", "l.md"}
		}, 0},
		{"a dot-folder a key may name", func(t *testing.T, dir string) []string {
			writeOld(t, dir, map[string]string{".trash/x.md": "h\n"})
			return []string{".trash", ".trash/x.md"}
		}, 1},
		{"a dot-folder reported alone is walked", func(t *testing.T, dir string) []string {
			writeOld(t, dir, map[string]string{".trash/y.md": "h\n"})
			return []string{".trash"}
		}, 1},
		{"unchanged file reported", func(t *testing.T, dir string) []string { return []string{"a.md"} }, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeOld(t, dir, map[string]string{"a.md": "a\n", "sub/b.md": "b\n", "sub/c.md": "c\n"})
			v := keepingView()
			v.watched(true)
			mustSnapshot(t, v, dir)
			if !v.settled() {
				t.Fatal("not settled after a walk while watched")
			}
			v.changed(tt.change(t, dir)...)
			v.reads, v.walks = 0, 0
			snap := mustSnapshot(t, v, dir)
			if v.reads != tt.reads || v.walks != 0 {
				t.Errorf("read %d files and walked %d times, want %d and 0", v.reads, v.walks, tt.reads)
			}
			checkLikeScanDir(t, dir, snap)
		})
	}
}

// TestLocalViewWalksWhenAsked: without a watcher every refresh walks; with
// one, a rescan request or the watcher's end makes the next refresh walk.
func TestLocalViewWalksWhenAsked(t *testing.T) {
	dir := t.TempDir()
	writeOld(t, dir, map[string]string{"a.md": "a\n"})
	v := keepingView()
	mustSnapshot(t, v, dir)
	mustSnapshot(t, v, dir)
	if v.walks != 2 || v.settled() {
		t.Errorf("unwatched: %d walks, settled %v; want 2 and false", v.walks, v.settled())
	}
	v.watched(true)
	for _, ask := range []func(){v.rescanAll, func() { v.watched(false) }} {
		v.watched(true)
		mustSnapshot(t, v, dir)
		v.walks = 0
		writeOld(t, dir, map[string]string{"unreported.md": "u\n"})
		ask()
		if snap := mustSnapshot(t, v, dir); v.walks != 1 || snap.Contents["unreported.md"] != "u\n" {
			t.Errorf("%d walks, unreported file %q; want a walk that finds it", v.walks, snap.Contents["unreported.md"])
		}
		os.Remove(filepath.Join(dir, "unreported.md"))
	}
}
