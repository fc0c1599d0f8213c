package gitremote

import (
	"errors"
	"fmt"
	"strings"

	"github.com/teammem/teammem/memcore/protocol"
)

// CanonicalFromURL returns the canonical slug (protocol §1) of a git remote
// URL, in any form git accepts for a hosted repository:
//
//	git@github.com:Acme/API.git              → acme/api
//	https://user:pw@github.com/acme/api      → acme/api
//	ssh://git@host:2222/acme/api.git         → acme/api
//	https://gitlab.example.com/group/sub/proj.git → group/sub/proj
//	git://host/acme/api, http://…, git+ssh://…, [::1]:acme/api
//
// Canonicalisation itself is protocol.CanonicalSlug; this function adds what
// is specific to remote URLs. As git does, a remote with neither a scheme nor
// an scp-style "host:" prefix is a local path: such remotes, and file://
// URLs, name no shared repository and fail with ErrLocalRemote. Other
// failures wrap protocol.ErrInvalidSlug. Errors never carry credentials.
func CanonicalFromURL(raw string) (string, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return "", errors.New("canonicalise remote: empty URL")
	}
	if isLocal(raw) {
		return "", fmt.Errorf("canonicalise remote %q: %w", raw, ErrLocalRemote)
	}
	slug, err := protocol.CanonicalSlug(stripBracketHost(raw))
	if err != nil {
		return "", fmt.Errorf("canonicalise remote: %w", err)
	}
	return slug, nil
}

// isLocal reports whether git would read raw as a local repository: a
// file:// URL, a Windows drive path, or no "scheme://" and no ':' before the
// first '/' (the rule of git's connect.c).
func isLocal(raw string) bool {
	if strings.HasPrefix(strings.ToLower(raw), "file:") || isDrivePath(raw) {
		return true
	}
	if strings.Contains(raw, "://") {
		return false
	}
	colon := strings.IndexByte(raw, ':')
	slash := strings.IndexAny(raw, `/\`)
	return colon < 0 || (slash >= 0 && slash < colon)
}

// isDrivePath reports a Windows path such as C:\repo or C:/repo.
func isDrivePath(raw string) bool {
	if len(raw) < 2 || raw[1] != ':' {
		return false
	}
	c := raw[0] | 0x20 // lower case
	return 'a' <= c && c <= 'z' && (len(raw) == 2 || raw[2] == '/' || raw[2] == '\\')
}

// stripBracketHost turns the scp form with a bracketed host
// ("[git@::1]:acme/api", "git@[::1]:acme/api", "[host:22]:acme/api") into its
// path, which protocol.CanonicalSlug would otherwise split at the first ':'.
func stripBracketHost(raw string) string {
	if strings.Contains(raw, "://") {
		return raw
	}
	open, end := strings.IndexByte(raw, '['), strings.Index(raw, "]:")
	if open < 0 || end < open || strings.ContainsAny(raw[:end], "/\\") {
		return raw
	}
	return raw[end+2:]
}
