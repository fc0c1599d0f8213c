package protocol

import (
	"errors"
	"strings"
	"testing"
)

// TestAgentMemoryRepos: the wire names of agent memory are personal
// repositories whose slugs CanonicalSlug keeps as they are (so the server
// accepts them unchanged), and no repository slug of a forge lands there.
func TestAgentMemoryRepos(t *testing.T) {
	for _, tc := range []struct {
		name, got, want string
		err             error
	}{
		{"user scope", must(MyAgentMemoryRepo("code-reviewer")), "~/.agent-memory/code-reviewer", nil},
		{"plugin agent", must(MyAgentMemoryRepo("plugin-reviewer_2.x")), "~/.agent-memory/plugin-reviewer_2.x", nil},
		{"local scope", must(MyLocalAgentMemoryRepo("acme/api")), "~/.agent-memory-local/acme/api", nil},
		{"local scope, deep group", must(MyLocalAgentMemoryRepo("a/b/c/d/e/f/g")), "~/.agent-memory-local/a/b/c/d/e/f/g", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Fatalf("got %q, want %q", tc.got, tc.want)
			}
			slug := strings.TrimPrefix(tc.got, "~/")
			if canon, err := CanonicalSlug(slug); err != nil || canon != slug {
				t.Errorf("CanonicalSlug(%q) = %q, %v; want it unchanged", slug, canon, err)
			}
			if !IsAgentMemorySlug(slug) {
				t.Errorf("IsAgentMemorySlug(%q) = false", slug)
			}
		})
	}
	for _, bad := range []string{"Reviewer", "code reviewer", "", ".", "..", "a/b", "ré"} {
		if got, err := MyAgentMemoryRepo(bad); !errors.Is(err, ErrInvalidSlug) {
			t.Errorf("MyAgentMemoryRepo(%q) = %q, %v; want ErrInvalidSlug", bad, got, err)
		}
	}
	if got, err := MyLocalAgentMemoryRepo("a/b/c/d/e/f/g/h"); !errors.Is(err, ErrInvalidSlug) {
		t.Errorf("an eight-segment slug: %q, %v; want ErrInvalidSlug", got, err)
	}
	for _, remote := range []string{"git@github.com:agent-memory/reviewer.git", "https://gitlab.com/acme/.agent-memory.git", "acme/api"} {
		if slug, err := CanonicalSlug(remote); err == nil && IsAgentMemorySlug(slug) {
			t.Errorf("the repository %s (%s) lands in an agent memory namespace", remote, slug)
		}
	}
}

func TestAgentMemoryType(t *testing.T) {
	for repo, want := range map[string]string{
		"~/.agent-memory/reviewer":           "reviewer",
		"~c5m6ior5/.agent-memory/reviewer":   "reviewer",
		"~c5m6ior5/.agent-memory-local/a/b":  "",
		"~c5m6ior5/acme/api":                 "",
		".agent-memory/reviewer":             "",
		"~c5m6ior5/.agent-memory/reviewer/x": "",
		"~c5m6ior5/.agent-memory/":           "",
	} {
		got, ok := AgentMemoryType(repo)
		if got != want || ok != (want != "") {
			t.Errorf("AgentMemoryType(%q) = %q, %v; want %q", repo, got, ok, want)
		}
	}
}

func must(s string, err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	return s
}
