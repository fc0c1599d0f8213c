package server

import (
	"encoding/base32"
	"strings"

	"github.com/teammem/teammem/memcore/protocol"
)

// Personal memory lives in repositories of a reserved
// namespace: the personal repository of subject S for slug acme/api is
// "~<space>/acme/api", where <space> is S in lower-case base32hex without
// padding. "~" never occurs in a canonical slug, so no team repository
// shares a name with a personal one, and no grant glob can name one (a
// glob segment is [a-z0-9._-], "*" or "**"; Principal.Perm ignores grants
// for personal repositories). On the wire the owner names it "~/acme/api"
// ("my own") or by its full name; the Service turns the short form into
// the caller's full name, and any other subject's full name is refused
// like a repository without a grant, whether or not it exists.
//
// Everything else (the store, history, tombstones, events, secret refusal,
// limits, search) is the team memory's own code: a personal repository is
// a repository.

// PersonalMark starts the name of every personal repository.
const PersonalMark = protocol.PersonalMark

// personalEncoding turns a subject into a name segment: lower-case
// base32hex ([0-9a-v]), which survives the slug's lower-casing.
var personalEncoding = base32.HexEncoding.WithPadding(base32.NoPadding)

// PersonalSpace returns the first segment of subject's personal
// repositories, "~" and the encoded subject.
func PersonalSpace(subject string) string {
	return PersonalMark + strings.ToLower(personalEncoding.EncodeToString([]byte(subject)))
}

// PersonalPrefix returns what the name of each of subject's personal
// repositories starts with: its space and "/".
func PersonalPrefix(subject string) string { return PersonalSpace(subject) + "/" }

// PersonalRepo returns the name of subject's personal repository for the
// canonical slug.
func PersonalRepo(subject, slug string) string { return PersonalPrefix(subject) + slug }

// IsPersonal reports whether a canonical repository name is a personal
// one.
func IsPersonal(repo string) bool { return strings.HasPrefix(repo, PersonalMark) }

// PersonalSlug returns the slug a personal repository is the personal
// memory of (acme/api for ~<space>/acme/api), or repo itself when it is not
// a personal repository.
func PersonalSlug(repo string) string {
	if !IsPersonal(repo) {
		return repo
	}
	_, slug, _ := strings.Cut(repo, "/")
	return slug
}

// ownsPersonal reports whether a canonical personal repository belongs to
// subject. The empty subject owns nothing.
func ownsPersonal(subject, repo string) bool {
	return subject != "" && strings.HasPrefix(repo, PersonalPrefix(subject))
}

// canonicalPersonal canonicalises a personal repository name: "~/" or
// "~<space>/" followed by a slug. The space is kept as given (lower-cased);
// "~" alone is the caller's own, resolved by the Service.
func canonicalPersonal(repo string) (string, error) {
	space, rest, ok := strings.Cut(repo, "/")
	space = strings.ToLower(space)
	if !ok || !validSpace(space) {
		return "", invalidf(ReasonInvalidRepo, "repository %q is not a valid personal repository: want ~/<slug> (for example ~/acme/api)", RedactRepo(repo))
	}
	slug, err := canonicalSlug(rest)
	if err != nil {
		return "", err
	}
	if protocol.IsOrgMemory(slug) {
		return "", invalidf(ReasonInvalidRepo, "repository %q is not a valid personal repository: %s is an org memory, which has no personal memory", RedactRepo(repo), slug)
	}
	return space + "/" + slug, nil
}

// ResolveRepo canonicalises repo as p names it: "~/<slug>" is p's own
// personal repository of slug (see PersonalRepo); anything else is
// CanonicalRepo's. It decides nothing about access (Principal.Perm does).
func ResolveRepo(p Principal, repo string) (string, error) {
	canon, err := CanonicalRepo(repo)
	if err != nil {
		return "", err
	}
	if own, ok := strings.CutPrefix(canon, PersonalMark+"/"); ok {
		if p.Subject == "" {
			return "", &ForbiddenError{Subject: p.Subject, Repo: canon, Need: PermRead}
		}
		return PersonalRepo(p.Subject, own), nil
	}
	return canon, nil
}

// validSpace reports whether s is "~" or "~" and base32hex digits.
func validSpace(s string) bool {
	if !strings.HasPrefix(s, PersonalMark) || len(s) > 1+maxSpaceDigits {
		return false
	}
	for _, c := range s[1:] {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'v') {
			return false
		}
	}
	return true
}

// maxSpaceDigits bounds the encoded subject: a subject of up to
// MaxRevocationField bytes.
const maxSpaceDigits = (MaxRevocationField*8 + 4) / 5
