package server

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/teammem/teammem/memcore/protocol"
)

// Perm is a level of access to a repository. Higher levels imply lower ones.
type Perm int

// Permission levels: write implies read, admin implies write.
const (
	PermNone Perm = iota
	PermRead
	PermWrite
	PermAdmin
)

func (p Perm) String() string {
	switch p {
	case PermRead:
		return "read"
	case PermWrite:
		return "write"
	case PermAdmin:
		return "admin"
	}
	return "none"
}

// ParsePerm parses "read", "write" or "admin".
func ParsePerm(s string) (Perm, error) {
	switch s {
	case "read":
		return PermRead, nil
	case "write":
		return PermWrite, nil
	case "admin":
		return PermAdmin, nil
	}
	return PermNone, fmt.Errorf("parse permission %q: %w: want read, write or admin", s, ErrInvalid)
}

// Grant gives a permission on every repository whose canonical slug matches
// Glob, segment by segment: `*` matches one segment, `**` any number
// (including none), anything else must be equal.
type Grant struct {
	Glob []string
	Perm Perm
}

// ParseGrant parses "<repo-glob>:<read|write|admin>".
func ParseGrant(s string) (Grant, error) {
	i := strings.LastIndexByte(s, ':')
	if i <= 0 {
		return Grant{}, fmt.Errorf("parse grant %q: %w: want <repo-glob>:<read|write|admin>", s, ErrInvalid)
	}
	perm, err := ParsePerm(s[i+1:])
	if err != nil {
		return Grant{}, fmt.Errorf("parse grant %q: %w", s, err)
	}
	glob := strings.ToLower(strings.Trim(s[:i], "/"))
	segs := strings.Split(glob, "/")
	for _, seg := range segs {
		if seg == "" || seg == "." || seg == ".." || !validGlobSegment(seg) {
			return Grant{}, fmt.Errorf("parse grant %q: %w: bad glob segment %q", s, ErrInvalid, seg)
		}
	}
	return Grant{Glob: segs, Perm: perm}, nil
}

func validGlobSegment(seg string) bool {
	if seg == "*" || seg == "**" {
		return true
	}
	for i := 0; i < len(seg); i++ {
		c := seg[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// String formats the grant as it is parsed.
func (g Grant) String() string { return strings.Join(g.Glob, "/") + ":" + g.Perm.String() }

// Matches reports whether the grant's glob matches a canonical slug.
func (g Grant) Matches(repo string) bool { return globCovers(g.Glob, strings.Split(repo, "/")) }

// globCovers reports whether glob a matches every slug glob b matches
// (conservatively: false when unsure). A slug's segments are literals, so
// it also tells whether a matches a slug: a literal b is covered exactly
// when it is matched.
func globCovers(a, b []string) bool {
	for len(a) > 0 {
		switch a[0] {
		case "**":
			for i := 0; i <= len(b); i++ {
				if globCovers(a[1:], b[i:]) {
					return true
				}
			}
			return false
		case "*": // one segment, not a "**" of any number
			if len(b) == 0 || b[0] == "**" {
				return false
			}
		default:
			if len(b) == 0 || b[0] != a[0] {
				return false
			}
		}
		a, b = a[1:], b[1:]
	}
	return len(b) == 0
}

// Principal is an authenticated caller.
type Principal struct {
	Subject string
	Grants  []Grant
	// Credential names the credential that authenticated the caller, as
	// its writes' provenance records it: "token:<id>" for a token of the
	// server's own key, "oidc:<id>" for an OIDC token ("token", "oidc"
	// when the token has no id), "session:<id>" for a web UI session,
	// "none" without authentication. Never the credential itself.
	Credential string
	// DisplayName is the person's name when the credential carries one
	// (an SSO sign-in); "" otherwise.
	DisplayName string
	// ProposeOnly is a credential whose writes all become proposals,
	// whatever the repository's review policy and the grants (a CI job,
	// a bot); it decides no proposal.
	ProposeOnly bool
	// Expires is when the credential stops being accepted; zero when it
	// does not expire (the loopback no-auth mode).
	Expires time.Time
	// Resource is the one protected resource (RFC 8707: the API's URL or
	// /mcp's) an OAuth access token was issued for, which every other
	// surface refuses; "" for a credential good on every surface.
	Resource string
}

// Perm returns the highest permission the principal holds on repo. A
// personal repository is written and read by its owner alone: no grant,
// not even **:admin, gives any permission on it. An org memory has rules
// of its own (see orgMemoryPerm).
func (p Principal) Perm(repo string) Perm {
	if IsPersonal(repo) {
		if ownsPersonal(p.Subject, repo) {
			return PermWrite
		}
		return PermNone
	}
	if ns := protocol.OrgNamespace(repo); ns != "" {
		return p.orgMemoryPerm(repo, ns)
	}
	best := PermNone
	for _, g := range p.Grants {
		if g.Perm > best && g.Matches(repo) {
			best = g.Perm
		}
	}
	return best
}

// listPrefixes returns name prefixes under which lies every repository p
// may read: each grant's segments before its first wildcard ("" for a
// glob that starts with one: every repository), the org memories of the
// namespaces those segments lie in, and p's personal space,
// leaving out any prefix another one covers.
func (p Principal) listPrefixes() []string {
	prefixes := p.personalPrefixes()
	for _, g := range p.Grants {
		if g.Perm < PermRead {
			continue
		}
		literal := g.Glob
		if i := slices.IndexFunc(literal, func(seg string) bool { return seg == "*" || seg == "**" }); i >= 0 {
			literal = literal[:i]
		}
		prefix := strings.Join(literal, "/")
		if len(literal) < len(g.Glob) && prefix != "" {
			prefix += "/" // a wildcard follows: the names go on past a "/"
		}
		prefixes = append(prefixes, prefix)
		prefixes = append(prefixes, orgMemoryPrefixes(literal)...)
	}
	slices.Sort(prefixes) // a prefix sorts before what it covers
	out := prefixes[:0]
	for _, pre := range prefixes {
		if len(out) == 0 || !strings.HasPrefix(pre, out[len(out)-1]) {
			out = append(out, pre)
		}
	}
	return out
}

// personalPrefixes returns the prefix of p's personal repositories, or
// none when p has no subject to own any.
func (p Principal) personalPrefixes() []string {
	if p.Subject == "" {
		return nil
	}
	return []string{PersonalPrefix(p.Subject)}
}

// Can reports whether the principal holds at least perm on repo.
func (p Principal) Can(repo string, perm Perm) bool { return p.Perm(repo) >= perm }

// Authenticator turns a bearer token into a Principal. Errors wrap
// ErrUnauthenticated and say why in words fit for the caller (expired,
// wrong audience...), never echoing the token. Implementations are safe for
// concurrent use.
type Authenticator interface {
	Authenticate(ctx context.Context, token string) (Principal, error)
}
