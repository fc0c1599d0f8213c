package mcptools

import (
	"context"
	"errors"

	"github.com/teammem/teammem/memcore/protocol"
)

// OrgList is the memories of one org memory that list_memories adds to a
// repository's.
type OrgList struct {
	Repo      string   `json:"repo" jsonschema:"the org memory's repository, such as acme/.memory"`
	Namespace string   `json:"namespace" jsonschema:"the namespace whose every repository it applies to, such as acme"`
	Memories  []Memory `json:"memories" jsonschema:"the index (MEMORY.md) first, then the topics by key"`
}

// orgsOf returns the org memories of repo (protocol.OrgMemories), nearest
// first; none for a name that is not a team repository's slug (a personal
// repository has none).
func orgsOf(repo string) []string {
	canon, err := protocol.CanonicalSlug(repo)
	if err != nil {
		return nil
	}
	return protocol.OrgMemories(canon)
}

// skippable reports whether an org memory that answered err is left out
// of a listing or search instead of failing it: one the caller may not
// read, or that was never written.
func skippable(err error) bool {
	return errors.Is(err, ErrForbidden) || errors.Is(err, ErrNotFound)
}

// listOrgs lists the org memories of repo the caller can read.
func (t *tools) listOrgs(ctx context.Context, repo string) ([]OrgList, error) {
	var out []OrgList
	for _, org := range orgsOf(repo) {
		entries, err := t.b.List(ctx, org)
		if skippable(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if len(entries) == 0 {
			continue
		}
		out = append(out, OrgList{Repo: org, Namespace: protocol.OrgNamespace(org), Memories: memories(entries)})
	}
	return out, nil
}

// searchOrgs searches the org memories of repo the caller can read, at
// most limit hits in all.
func (t *tools) searchOrgs(ctx context.Context, query, repo string, limit int) ([]Hit, error) {
	var out []Hit
	for _, org := range orgsOf(repo) {
		if len(out) >= limit {
			break
		}
		found, err := t.b.Search(ctx, query, org, limit-len(out))
		if skippable(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, found.Hits...)
	}
	return out, nil
}
