package protocol

import (
	"errors"
	"fmt"
	"strings"
)

// Limits on repository slugs (protocol.md §1).
const (
	// MaxSlugBytes is the longest canonical slug, in bytes.
	MaxSlugBytes = 200
	// MinSlugSegments and MaxSlugSegments bound the segments of a slug.
	MinSlugSegments = 2
	MaxSlugSegments = 8
)

// ErrInvalidSlug is wrapped by every error CanonicalSlug returns.
var ErrInvalidSlug = errors.New("invalid repository slug")

// slugSchemes are the URL schemes of git remotes that CanonicalSlug strips.
var slugSchemes = []string{"https", "http", "ssh", "git", "git+ssh", "ssh+git"}

// CanonicalSlug returns the canonical form of a repository identity
// (protocol.md §1), given either a slug such as "Acme/API.git" or a git remote
// URL such as "git@github.com:Acme/API.git",
// "https://user:pw@github.com/acme/api" or "ssh://git@host:2222/acme/api.git".
//
// It lower-cases s; strips a scheme (https, http, ssh, git, git+ssh, ssh+git)
// with its credentials, host and port, or an scp-style "[user@]host:" prefix;
// then removes surrounding slashes and trailing ".git" suffixes. A first
// segment is taken as a host only when there is a scheme or an scp-style ":"
// before the first "/": "a/b" is a slug, not host a with path b. The result
// must have 2 to 8 segments of [a-z0-9._-], none empty, "." or "..", no
// ".memory" but the last (OrgMemoryName), and at most 200 bytes; otherwise the error wraps ErrInvalidSlug and says why
// ("acme//web" is an error, not collapsed). The result canonicalises to itself.
func CanonicalSlug(s string) (string, error) {
	slug, err := slugPath(strings.ToLower(s))
	if err == nil {
		slug = strings.Trim(slug, "/")
		for strings.HasSuffix(slug, ".git") {
			slug = strings.TrimSuffix(slug, ".git")
		}
		err = checkSlug(slug)
	}
	if err != nil {
		return "", fmt.Errorf("canonicalise slug %q: %w: %w", redactUserinfo(s), ErrInvalidSlug, err)
	}
	return slug, nil
}

// slugPath strips the scheme, credentials, host and port, or the scp-style
// host prefix, from lower-cased s, returning the path part.
func slugPath(s string) (string, error) {
	if scheme, rest, ok := strings.Cut(s, "://"); ok {
		if !isSlugScheme(scheme) {
			return "", fmt.Errorf("unsupported scheme %q", scheme)
		}
		_, path, ok := strings.Cut(rest, "/")
		if !ok {
			return "", errors.New("remote URL has no path")
		}
		return path, nil
	}
	colon, slash := strings.IndexByte(s, ':'), strings.IndexByte(s, '/')
	if colon >= 0 && (slash < 0 || colon < slash) {
		if colon == 0 {
			return "", errors.New("empty host before ':'")
		}
		return s[colon+1:], nil // scp form: [user@]host:path
	}
	return s, nil
}

// redactUserinfo hides the credentials of a remote URL ("https://user:pw@host/…")
// so that an error message never carries a password.
func redactUserinfo(s string) string {
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok {
		return s
	}
	authority, path, _ := strings.Cut(rest, "/")
	at := strings.LastIndexByte(authority, '@')
	if at < 0 {
		return s
	}
	return scheme + "://REDACTED" + authority[at:] + "/" + path
}

// isSlugScheme reports whether scheme is one CanonicalSlug strips.
func isSlugScheme(scheme string) bool {
	for _, known := range slugSchemes {
		if scheme == known {
			return true
		}
	}
	return false
}

// checkSlug reports why slug is not canonical, or nil.
func checkSlug(slug string) error {
	if len(slug) > MaxSlugBytes {
		return fmt.Errorf("longer than %d bytes", MaxSlugBytes)
	}
	segments := strings.Split(slug, "/")
	for i, seg := range segments {
		if err := checkSlugSegment(seg); err != nil {
			return err
		}
		if seg == OrgMemoryName && i < len(segments)-1 {
			return errOrgMemoryInside
		}
	}
	if n := len(segments); n < MinSlugSegments || n > MaxSlugSegments {
		return fmt.Errorf("%d segments, want %d to %d", n, MinSlugSegments, MaxSlugSegments)
	}
	return nil
}

// checkSlugSegment reports why seg is not a canonical slug segment, or nil.
func checkSlugSegment(seg string) error {
	switch seg {
	case "":
		return errors.New("empty segment")
	case ".", "..":
		return fmt.Errorf("segment %q", seg)
	}
	for i := 0; i < len(seg); i++ {
		if c := seg[i]; !isSlugByte(c) {
			return fmt.Errorf("character %q not allowed", c)
		}
	}
	return nil
}

// isSlugByte reports whether c is in [a-z0-9._-].
func isSlugByte(c byte) bool {
	return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-'
}
