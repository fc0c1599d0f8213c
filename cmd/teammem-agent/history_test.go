package main

import (
	"testing"

	"github.com/teammem/teammem/client/agent"
)

// TestDeletedErrorCommands: the commands show's refusal of a deleted key
// suggests run as they are printed: a key a shell would split or expand
// is quoted, and the flags that chose the repository come along.
func TestDeletedErrorCommands(t *testing.T) {
	tests := []struct {
		name  string
		flags commonFlags
		key   string
		want  string
	}{
		{"plain key", commonFlags{}, "notes/db.md",
			"acme/api \"notes/db.md\" was deleted in version 12; its last content is version 11: " +
				"`teammem-agent show notes/db.md@11` prints it, `teammem-agent restore notes/db.md --version 11` brings it back"},
		{"key a shell splits", commonFlags{repo: "acme/api", personal: true}, "it's q3 $plan.md",
			"acme/api \"it's q3 $plan.md\" was deleted in version 12; its last content is version 11: " +
				"`teammem-agent show 'it'\\''s q3 $plan.md@11' --repo acme/api --personal` prints it, " +
				"`teammem-agent restore 'it'\\''s q3 $plan.md' --version 11 --repo acme/api --personal` brings it back"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &session{slug: "acme/api", flags: tt.flags}
			got := deletedError(s, &agent.DeletedError{Key: tt.key, DeletedIn: 12, LastContent: 11}).Error()
			if got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
	if got := deletedError(&session{slug: "acme/api"}, &agent.DeletedError{Key: "a.md", DeletedIn: 2}).Error(); got != `acme/api "a.md" was deleted in version 2` {
		t.Errorf("without the last content: %s", got)
	}
}
