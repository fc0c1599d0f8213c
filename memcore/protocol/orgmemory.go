package protocol

import (
	"errors"
	"strings"
)

// OrgMemoryName is the last segment of an org memory's slug: the org
// memory of namespace N (a slug's segments before its last) is the
// repository N/.memory, as GitHub's `.github` repository holds an
// organisation's defaults. It applies to every repository of N and of the
// groups nested in N.
const OrgMemoryName = ".memory"

// IsOrgMemory reports whether a canonical slug names an org memory.
func IsOrgMemory(slug string) bool {
	return strings.HasSuffix(slug, "/"+OrgMemoryName)
}

// OrgNamespace returns the namespace whose org memory slug is, "" when
// slug is no org memory.
func OrgNamespace(slug string) string {
	ns, ok := strings.CutSuffix(slug, "/"+OrgMemoryName)
	if !ok {
		return ""
	}
	return ns
}

// OrgMemoryOf returns the org memory of namespace ns: ns + "/.memory".
func OrgMemoryOf(ns string) string { return ns + "/" + OrgMemoryName }

// OrgMemories returns the org memories that apply to the repository of a
// canonical slug, nearest first: for group/sub/proj, group/sub/.memory
// then group/.memory. An org memory has none (it is no member of its own
// namespace's repositories).
func OrgMemories(slug string) []string {
	if IsOrgMemory(slug) {
		return nil
	}
	segs := strings.Split(slug, "/")
	out := make([]string, 0, len(segs)-1)
	for n := len(segs) - 1; n >= 1; n-- {
		out = append(out, OrgMemoryOf(strings.Join(segs[:n], "/")))
	}
	return out
}

// errOrgMemoryInside is checkSlug's reason for a slug with .memory before
// its last segment: an org memory holds no repositories.
var errOrgMemoryInside = errors.New(`segment ".memory" before the last: an org memory is a repository, not a group`)
