package server

import (
	"strings"

	"github.com/teammem/teammem/memcore/protocol"
)

// orgMemoryPerm is the permission p holds on the org memory repo of
// namespace ns (repo is ns/.memory):
//   - read, when a grant of at least read could match some repository
//     under ns/ (one or more segments after it): acme/api, acme/*,
//     acme/**, */api, **/api and ** all read acme/.memory; acme-corp/*,
//     acme/api/x's siblings' groups and * (which no slug matches) do not;
//     group/sub/proj reads group/sub/.memory and group/.memory;
//   - write, only from a grant that names repo literally (no wildcard):
//     acme/.memory:write; a glob write grant (acme/*:write,
//     acme/**:write, **:write) gives read only;
//   - admin, from any admin grant that matches repo (acme/*:admin,
//     acme/**:admin, **:admin, acme/.memory:admin).
func (p Principal) orgMemoryPerm(repo, ns string) Perm {
	segs := strings.Split(repo, "/")
	under := strings.Split(ns, "/")
	best := PermNone
	for _, g := range p.Grants {
		var got Perm
		switch {
		case g.Perm == PermAdmin && globCovers(g.Glob, segs):
			got = PermAdmin
		case g.literal() && globCovers(g.Glob, segs):
			got = g.Perm
		case g.Perm >= PermRead && globMatchesUnder(g.Glob, under):
			got = PermRead
		}
		best = max(best, got)
	}
	return best
}

// literal reports whether the grant's glob has no wildcard: it names one
// repository.
func (g Grant) literal() bool {
	for _, seg := range g.Glob {
		if seg == "*" || seg == "**" {
			return false
		}
	}
	return true
}

// globMatchesUnder reports whether glob matches some slug made of prefix
// followed by one segment or more.
func globMatchesUnder(glob, prefix []string) bool {
	if len(prefix) == 0 {
		return len(glob) > 0 // every glob of one segment or more matches some non-empty list
	}
	if len(glob) == 0 {
		return false
	}
	switch glob[0] {
	case "**":
		return globMatchesUnder(glob[1:], prefix) || globMatchesUnder(glob, prefix[1:])
	case "*", prefix[0]:
		return globMatchesUnder(glob[1:], prefix[1:])
	}
	return false
}

// orgMemoryPrefixes returns the listing prefixes (see listPrefixes) of the
// org memories that a grant whose literal segments before its first
// wildcard are lit (all of them when it has none) gives read on outside
// lit's own prefix: those of the namespaces lit lies in.
func orgMemoryPrefixes(lit []string) []string {
	var out []string
	for i := 1; i < len(lit); i++ {
		out = append(out, protocol.OrgMemoryOf(strings.Join(lit[:i], "/")))
	}
	return out
}
