package agent

import (
	"strings"
	"testing"

	"github.com/teammem/teammem/api"
)

func TestIsIndex(t *testing.T) {
	for key, want := range map[string]bool{"MEMORY.md": true, "team/sub/MEMORY.md": true, "memory.md": false, "MEMORY.md.bak": false, "notes/MEMORY.txt": false} {
		if isIndex(key) != want {
			t.Errorf("isIndex(%q) = %v", key, !want)
		}
	}
}

// TestEngineIndexMergesByLineUnion: two sides each add a line to a
// MEMORY.md (top level and in a subfolder): the sync keeps both lines on
// both sides and makes no conflict copy; a topic file edited the same way
// still gets one.
func TestEngineIndexMergesByLineUnion(t *testing.T) {
	const idx = "# Index\n- [a](a.md)\n"
	r := newRig(t, map[string]string{"MEMORY.md": idx, "sub/MEMORY.md": idx, "topic.md": idx}, nil, nil)
	r.sync(t)
	writeTree(t, r.dir, map[string]string{"MEMORY.md": idx + "- [mine](mine.md)\n", "sub/MEMORY.md": idx + "- [mine](mine.md)\n",
		"topic.md": idx + "- [mine](mine.md)\n"})
	r.serverEdit(api.PutRequest{Entries: map[string]string{"MEMORY.md": idx + "- [theirs](theirs.md)\n",
		"sub/MEMORY.md": idx + "- [theirs](theirs.md)\n", "topic.md": idx + "- [theirs](theirs.md)\n"}})
	rep := r.sync(t)
	want := idx + "- [mine](mine.md)\n- [theirs](theirs.md)\n"
	local, server := r.local(t), r.remote.snapshot()
	for _, k := range []string{"MEMORY.md", "sub/MEMORY.md"} {
		if local[k] != want || server[k] != want {
			t.Errorf("%s: local %q server %q, want %q on both", k, local[k], server[k], want)
		}
	}
	if len(rep.Conflicts) != 1 || !strings.HasPrefix(rep.Conflicts[0], "topic.conflict-") {
		t.Errorf("conflicts %q, want one, of topic.md only", rep.Conflicts)
	}
}
