package agent

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestEngineSkipsCaseFoldCollisions: a never-synced local Notes.md and the
// server's notes.md are both left alone with a warning naming them; neither
// is written locally nor pushed, while the other keys sync.
func TestEngineSkipsCaseFoldCollisions(t *testing.T) {
	r := newRig(t, map[string]string{"notes.md": "theirs\n", "a.md": "a\n"},
		map[string]string{"Notes.md": "mine\n", "b.md": "b\n"}, nil)
	rep := r.sync(t)
	if diff := cmp.Diff(map[string]string{"Notes.md": "mine\n", "a.md": "a\n", "b.md": "b\n"}, r.local(t)); diff != "" {
		t.Errorf("local (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]string{"notes.md": "theirs\n", "a.md": "a\n", "b.md": "b\n"}, r.remote.snapshot()); diff != "" {
		t.Errorf("server (-want +got):\n%s", diff)
	}
	found := false
	for _, w := range rep.Warnings {
		found = found || strings.Contains(w, `"Notes.md" and "notes.md"`)
	}
	if !found {
		t.Errorf("warnings = %q, want one naming \"Notes.md\" and \"notes.md\"", rep.Warnings)
	}
}

// TestReconcileFoldCollisions: a local key meeting a different server key is
// a collision, and two server keys are on a case-insensitive file system
// (Windows, macOS); the same key on both sides, or two server keys with no
// local file on a case-sensitive one, are not.
func TestReconcileFoldCollisions(t *testing.T) {
	tests := []struct {
		name    string
		in      Input
		skipped []string
	}{
		{"local meets server", Input{Local: map[string]string{"A.md": "x"}, Server: map[string]string{"a.md": "y"}}, []string{"A.md", "a.md"}},
		{"skipped local file meets server", Input{LocalSkipped: map[string]bool{"A.md": true}, Server: map[string]string{"a.md": "y"}}, []string{"A.md", "a.md"}},
		{"same key", Input{Local: map[string]string{"a.md": "x"}, Server: map[string]string{"a.md": "y"}}, nil},
		{"server only", Input{Server: map[string]string{"a.md": "y", "A.md": "z"}}, nil},
		{"server twins on a case-insensitive file system", Input{Server: map[string]string{"a.md": "y", "A.md": "z", "b.md": "b"}, CaseInsensitive: true}, []string{"A.md", "a.md"}},
		{"local only", Input{Local: map[string]string{"a.md": "y", "A.md": "z"}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, st := range Reconcile(tt.in).Steps {
				if st.Action == ActionSkip && strings.Contains(st.Reason, "case") {
					got = append(got, st.Key)
				}
			}
			if diff := cmp.Diff(tt.skipped, got); diff != "" {
				t.Errorf("skipped for case (-want +got):\n%s", diff)
			}
		})
	}
}
