package protocol

import (
	"fmt"
	"strings"
)

// PersonalMark starts the name of a personal repository: the
// user's own memory of a repository, which only tokens of the user's
// subject read or write. It never occurs in a canonical slug.
const PersonalMark = "~"

// MyPersonalRepo is how a client names its user's personal memory of a
// canonical slug on the wire: "~/acme/api". The server resolves it to the
// token subject's own repository.
func MyPersonalRepo(slug string) string { return PersonalMark + "/" + slug }

// The personal namespaces of agent memory (memcore §12), named after the
// folders Claude Code keeps it in. Each starts with a dot, which no owner
// or group path of GitHub or GitLab can, so that no repository's personal
// memory (~/<slug>) shares a name with them. The slug grammar allows them.
const (
	// AgentMemorySpace holds the user-scope memory of each agent type:
	// ~/.agent-memory/<type>, one repository per type, shared by every
	// project of the user.
	AgentMemorySpace = ".agent-memory"
	// LocalAgentMemorySpace holds the local-scope agent memory of each
	// repository's checkouts: ~/.agent-memory-local/<slug>, one folder per
	// agent type inside.
	LocalAgentMemorySpace = ".agent-memory-local"
)

// MyAgentMemoryRepo names on the wire the user's memory of one agent type
// (the type's folder name): ~/.agent-memory/<type>. A folder name that is
// not already a canonical slug segment ([a-z0-9._-], not "." or "..") is
// refused: lower-casing would give "Reviewer" and "reviewer" one repository
// and write one's files into the other's folder on another machine.
func MyAgentMemoryRepo(agentType string) (string, error) {
	if err := checkSlugSegment(agentType); err != nil {
		return "", fmt.Errorf("%w: agent type %q: %v", ErrInvalidSlug, agentType, err)
	}
	return MyPersonalRepo(AgentMemorySpace + "/" + agentType), nil
}

// MyLocalAgentMemoryRepo names on the wire the user's local-scope agent
// memory of a repository's checkouts: ~/.agent-memory-local/<slug>, slug
// canonical. A slug of MaxSlugSegments segments leaves no room and is
// refused.
func MyLocalAgentMemoryRepo(slug string) (string, error) {
	full := LocalAgentMemorySpace + "/" + slug
	if err := checkSlug(full); err != nil {
		return "", fmt.Errorf("%w: local agent memory of %q: %v", ErrInvalidSlug, slug, err)
	}
	return MyPersonalRepo(full), nil
}

// AgentMemoryType returns the agent type whose user-scope memory a
// personal repository holds, given its short (~/.agent-memory/<type>) or
// full (~<space>/.agent-memory/<type>) name.
func AgentMemoryType(repo string) (string, bool) {
	if !strings.HasPrefix(repo, PersonalMark) {
		return "", false
	}
	_, slug, _ := strings.Cut(repo, "/")
	t, ok := strings.CutPrefix(slug, AgentMemorySpace+"/")
	if !ok || checkSlugSegment(t) != nil {
		return "", false
	}
	return t, true
}

// IsAgentMemorySlug reports whether a slug lies in one of the agent memory
// namespaces, so that the personal memory of a repository of that name
// would be agent memory's: such a repository's personal memory is not
// synced.
func IsAgentMemorySlug(slug string) bool {
	first, _, _ := strings.Cut(slug, "/")
	return first == AgentMemorySpace || first == LocalAgentMemorySpace
}
