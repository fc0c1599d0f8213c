package protocol

import (
	"slices"
	"strings"
	"testing"
)

// TestOrgMemorySlugs: .memory is accepted as a slug's last segment only;
// other dot-leading segments are ordinary names, as before, and "." and
// ".." stay refused.
func TestOrgMemorySlugs(t *testing.T) {
	accepts := map[string]string{
		"acme/.memory":                "acme/.memory",
		"Acme/.MEMORY.git":            "acme/.memory",
		"git@github.com:acme/.memory": "acme/.memory",
		"group/sub/.memory":           "group/sub/.memory",
		"acme/..memory":               "acme/..memory", // an ordinary repository
		"acme/.memory-old":            "acme/.memory-old",
		"acme/.github":                "acme/.github",
	}
	for in, want := range accepts {
		if got, err := CanonicalSlug(in); err != nil || got != want {
			t.Errorf("CanonicalSlug(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	refuses := map[string]string{
		".memory":                        "1 segments",
		".memory/x":                      `".memory" before the last`,
		"acme/.memory/x":                 `".memory" before the last`,
		"acme/.memory/.memory":           `".memory" before the last`,
		"acme/../.memory":                `segment ".."`,
		"acme/./.memory":                 `segment "."`,
		"https://h/acme/.Memory/api.git": `".memory" before the last`,
	}
	for in, reason := range refuses {
		_, err := CanonicalSlug(in)
		if err == nil || !strings.Contains(err.Error(), reason) {
			t.Errorf("CanonicalSlug(%q) = %v; want an error saying %s", in, err, reason)
		}
	}
}

func TestOrgMemories(t *testing.T) {
	tests := []struct {
		slug string
		want []string
	}{
		{"acme/api", []string{"acme/.memory"}},
		{"group/sub/proj", []string{"group/sub/.memory", "group/.memory"}},
		{"acme/.memory", nil},
		{"acme/..memory", []string{"acme/.memory"}},
	}
	for _, tt := range tests {
		if got := OrgMemories(tt.slug); !slices.Equal(got, tt.want) {
			t.Errorf("OrgMemories(%q) = %q; want %q", tt.slug, got, tt.want)
		}
	}
	if !IsOrgMemory("acme/.memory") || IsOrgMemory("acme/..memory") || IsOrgMemory("acme/x.memory") {
		t.Error("IsOrgMemory: wrong answer")
	}
	if OrgNamespace("group/sub/.memory") != "group/sub" || OrgNamespace("acme/api") != "" {
		t.Error("OrgNamespace: wrong answer")
	}
}
