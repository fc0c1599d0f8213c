package server

import (
	"errors"
	"strings"

	"github.com/teammem/teammem/memcore/protocol"
)

// CanonicalRepo canonicalises a repository slug (protocol §1): `Acme/API.git`
// and `acme/api` name the same repository. Anything that does not
// canonicalise is an ErrInvalid RequestError.
func CanonicalRepo(repo string) (string, error) {
	if repo == "" {
		return "", invalidf(ReasonInvalidRepo, "the repo parameter is required (for example repo=acme/api)")
	}
	if IsPersonal(repo) {
		return canonicalPersonal(repo)
	}
	return canonicalSlug(repo)
}

// canonicalSlug canonicalises a team repository's slug.
func canonicalSlug(repo string) (string, error) {
	canon, err := protocol.CanonicalSlug(repo)
	if err != nil {
		e := invalidf(ReasonInvalidRepo, "repository %q is not a valid slug: %v", RedactRepo(repo), slugReason(err))
		return "", e
	}
	return canon, nil
}

// RedactRepo bounds a raw repo parameter and removes the credentials of a
// URL-shaped one (https://user:token@host/...), so it can be echoed or
// logged.
func RedactRepo(repo string) string {
	if i := strings.Index(repo, "://"); i >= 0 {
		rest := repo[i+3:]
		end := strings.IndexAny(rest, "/?#")
		if end < 0 {
			end = len(rest)
		}
		if at := strings.LastIndexByte(rest[:end], '@'); at >= 0 {
			repo = repo[:i+3] + "REDACTED@" + rest[at+1:]
		}
	}
	return truncateForMessage(repo)
}

// slugReason returns the reason part of a slug error.
func slugReason(err error) string {
	if u := errors.Unwrap(err); u != nil && !errors.Is(u, protocol.ErrInvalidSlug) {
		return u.Error()
	}
	return err.Error()
}

// validateKey applies protocol.ValidateKey and turns its error into a
// RequestError naming the key.
func validateKey(key string) error {
	if err := protocol.ValidateKey(key); err != nil {
		e := invalidf(ReasonInvalidKey, "%v", err)
		e.Details = map[string]any{"key": truncateForMessage(key)}
		return e
	}
	return nil
}

// truncateForMessage bounds what of a hostile input is echoed back.
func truncateForMessage(s string) string {
	const max = 600
	if len(s) <= max {
		return s
	}
	return s[:max] + "…"
}
