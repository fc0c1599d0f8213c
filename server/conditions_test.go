package server_test

import (
	"errors"
	"testing"

	"github.com/teammem/teammem/server"
)

// TestTags: an If-Match list holds when it names the current checksum, "*"
// whenever the repository has been written, no condition always; a list
// that names nothing (a header of unusable tags) never holds; a
// never-written repository matches no If-Match at all. If-None-Match is
// the mirror image, but for a never-written repository, which no condition
// refuses.
func TestTags(t *testing.T) {
	cur := server.RepoState{Version: 3, Checksum: "sha256:cur"}
	never := server.RepoState{}
	tests := []struct {
		name             string
		tags             server.Tags
		match, noneMatch bool // on cur: does If-Match / If-None-Match hold
		matchNever       bool // If-Match on a never-written repository
	}{
		{"none", server.Tags{}, true, true, true},
		{"star", server.AnyTag(), true, false, false},
		{"current", server.TagList("sha256:cur"), true, false, false},
		{"current in a list", server.TagList("sha256:old", "sha256:cur"), true, false, false},
		{"other", server.TagList("sha256:old"), false, true, false},
		{"others", server.TagList("sha256:old", "sha256:older"), false, true, false},
		{"names nothing", server.TagList(), false, true, false},
		{"prefix of current", server.TagList("sha256:cu"), false, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := server.CheckIfMatch(cur, tt.tags); (err == nil) != tt.match {
				t.Errorf("If-Match %q on cur: %v", tt.tags, err)
			} else if err != nil {
				var pe *server.PreconditionError
				if !errors.As(err, &pe) || pe.Checksum != cur.Checksum {
					t.Errorf("If-Match refusal %v does not carry the current checksum", err)
				}
			}
			if err := server.CheckIfNoneMatch(cur, tt.tags); (err == nil) != tt.noneMatch {
				t.Errorf("If-None-Match %q on cur: %v", tt.tags, err)
			}
			if err := server.CheckIfMatch(never, tt.tags); (err == nil) != tt.matchNever {
				t.Errorf("If-Match %q on a never-written repository: %v", tt.tags, err)
			}
			if err := server.CheckIfNoneMatch(never, tt.tags); err != nil {
				t.Errorf("If-None-Match %q on a never-written repository: %v", tt.tags, err)
			}
		})
	}
	if (server.Preconditions{}) != (server.Preconditions{IfMatch: server.Tags{}}) || server.TagList().IsSet() == false {
		t.Error("the zero Preconditions is no condition; an empty list is a condition")
	}
}
