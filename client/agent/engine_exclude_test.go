package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestEngineExcludedFolder: a folder named in ScanOptions.Exclude (the
// team folder, for personal memory) is neither pushed nor written, nor
// deleted from: a server key below it is skipped with a warning, even in
// another case, and the files in it stay as they were; everything else
// syncs (the private MEMORY.md and its topic files).
func TestEngineExcludedFolder(t *testing.T) {
	r := newRig(t,
		map[string]string{"MEMORY.md": "- [a](a.md)\n", "team/evil.md": "from the server\n", "TEAM/x.md": "case\n", "a.md": "server a\n"},
		map[string]string{"notes.md": "local\n", "team/shared.md": "team file\n", "team/MEMORY.md": "- team index\n"},
		func(c *Config) { c.Scan.Exclude = []string{"team"} })
	rep := r.sync(t)
	for _, key := range []string{"team/shared.md", "team/MEMORY.md"} {
		if _, ok := r.remote.entries[key]; ok {
			t.Errorf("%s was pushed", key)
		}
	}
	if r.remote.entries["notes.md"] != "local\n" {
		t.Errorf("notes.md not pushed: %v", r.remote.entries)
	}
	if _, err := os.Stat(filepath.Join(r.dir, "team", "evil.md")); err == nil {
		t.Error("the server's team/evil.md was written into the team folder")
	}
	if _, err := os.Stat(filepath.Join(r.dir, "TEAM", "x.md")); err == nil {
		t.Error("the server's TEAM/x.md was written")
	}
	for key, want := range map[string]string{"team/shared.md": "team file\n", "team/MEMORY.md": "- team index\n", "a.md": "server a\n", "MEMORY.md": "- [a](a.md)\n"} {
		if got, err := os.ReadFile(filepath.Join(r.dir, filepath.FromSlash(key))); err != nil || string(got) != want {
			t.Errorf("%s = %q, %v; want %q", key, got, err, want)
		}
	}
	warned := strings.Join(rep.Warnings, "\n")
	if !strings.Contains(warned, `"team/evil.md"`) || !strings.Contains(warned, `"TEAM/x.md"`) {
		t.Errorf("warnings %q; want team/evil.md and TEAM/x.md named", rep.Warnings)
	}
	snap, err := ScanDir(r.dir, ScanOptions{Exclude: []string{"team"}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]string{"MEMORY.md": "- [a](a.md)\n", "a.md": "server a\n", "notes.md": "local\n"}, snap.Contents); diff != "" {
		t.Errorf("scan with the team folder excluded (-want +got):\n%s", diff)
	}
	// A deletion in the team folder is not the personal memory's either.
	if err := os.Remove(filepath.Join(r.dir, "team", "shared.md")); err != nil {
		t.Fatal(err)
	}
	r.engine.local.changed("team/shared.md")
	r.sync(t)
	if len(r.remote.tombs) != 0 {
		t.Errorf("tombstones %v after a team file was removed", r.remote.tombs)
	}
}
