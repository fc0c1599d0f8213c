package agent

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/memcore/protocol"
)

func TestConflictName(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("x", 3600))
	tests := []struct{ name, key, host, want string }{
		{"top level", "MEMORY.md", "laptop", "MEMORY.conflict-20260102T020405Z-laptop.md"},
		{"nested", "notes/db.md", "build-01", "notes/db.conflict-20260102T020405Z-build-01.md"},
		{"txt keeps its extension", "a.txt", "h", "a.conflict-20260102T020405Z-h.txt"},
		{"hostile host", "a.md", "../x:y\x1b", "a.conflict-20260102T020405Z-x-y.md"},
		{"empty host", "a.md", "", "a.conflict-20260102T020405Z-unknown.md"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ConflictName(tt.key, at, tt.host)
			if got != tt.want {
				t.Errorf("ConflictName = %q, want %q", got, tt.want)
			}
			if err := protocol.ValidateKey(got); err != nil {
				t.Errorf("conflict name is not a valid key: %v", err)
			}
			if !protocol.IsConflictCopy(got) || protocol.IsConflictCopy(tt.key) {
				t.Errorf("IsConflictCopy wrong for %q or %q", got, tt.key)
			}
		})
	}
}

// TestEngineConflictCopiesInOneSecond: two conflicts on one key within the
// same second keep both local versions, in two conflict copies.
func TestEngineConflictCopiesInOneSecond(t *testing.T) {
	r := newRig(t, map[string]string{"a.md": "line\n"}, nil, nil) // the rig's clock stands still
	r.sync(t)
	for _, mine := range []string{"mine 1\n", "mine 2\n"} {
		writeTree(t, r.dir, map[string]string{"a.md": mine})
		r.serverEdit(api.PutRequest{Entries: map[string]string{"a.md": "theirs " + mine}})
		r.sync(t)
	}
	want := map[string]string{"a.md": "theirs mine 2\n",
		"a.conflict-20260102T030405Z-box.md": "mine 1\n", "a.conflict-20260102T030405Z-box-2.md": "mine 2\n"}
	got := map[string]string{}
	entries, err := os.ReadDir(r.dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(r.dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		got[e.Name()] = string(data)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("folder (-want +got):\n%s", diff)
	}
}
