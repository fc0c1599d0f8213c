package protocol

import (
	"net/url"
	"path"
	"regexp"
	"strings"
)

// schemeRe matches a URL scheme (https:, mailto:, javascript:, C: …).
var schemeRe = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)

// LinkTarget reads a link destination as written (Link.Dest, or the
// destination of any Markdown parser that keeps it raw) as a path relative
// to the folder of the file that holds the link: without backslash
// escapes, query and #fragment, percent-decoded, cleaned (path.Clean, so
// "./" and "a/../" go). local is false for a destination that names no
// file beside it: empty, an in-page anchor, a URL or any "scheme:", an
// absolute or home path. rel may still climb out ("../x.md") or be no
// valid key; JoinLink tells.
func LinkTarget(dest string) (rel string, local bool) {
	t := unescapeMarkdown(dest)
	if t == "" || t[0] == '#' || t[0] == '?' || t[0] == '/' || t[0] == '\\' || strings.HasPrefix(t, "~/") || schemeRe.MatchString(t) {
		return "", false
	}
	if i := strings.IndexAny(t, "?#"); i >= 0 {
		t = t[:i]
	}
	if u, err := url.PathUnescape(t); err == nil {
		t = u
	}
	if t = path.Clean(t); t == "." {
		return "", false
	}
	return t, true
}

// JoinLink returns the key that rel (a LinkTarget) names from a file in
// the folder dir ("" or "." for the top of the memory folder); ok is false
// when it climbs out of the memory folder or is no valid key.
func JoinLink(dir, rel string) (key string, ok bool) {
	if strings.HasPrefix(rel, "/") {
		return "", false
	}
	key = path.Join(dir, rel)
	if ValidateKey(key) != nil {
		return "", false
	}
	return key, true
}

// LinkKey returns the key that a link destination as written names from a
// file in the folder dir (LinkTarget, then JoinLink).
func LinkKey(dir, dest string) (key string, ok bool) {
	rel, local := LinkTarget(dest)
	if !local {
		return "", false
	}
	return JoinLink(dir, rel)
}

// LinkDest returns a destination that links key from the top of the
// memory folder (LinkKey("", LinkDest(key)) is key for every valid key):
// "%", "#" and "?" percent-encoded, in angle brackets when the key holds a
// space or a parenthesis, "<", ">" and "\" escaped, after "./" when it
// starts with "~/" (which would name a home folder).
func LinkDest(key string) string {
	var b strings.Builder
	if strings.HasPrefix(key, "~/") {
		b.WriteString("./")
	}
	angle := strings.ContainsAny(key, " ()")
	for i := 0; i < len(key); i++ {
		switch c := key[i]; c {
		case '%', '#', '?':
			b.WriteString(url.PathEscape(string(c)))
		case '<', '>', '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	if angle {
		return "<" + b.String() + ">"
	}
	return b.String()
}

// unescapeMarkdown removes the backslash of Markdown's backslash escapes
// (a backslash before ASCII punctuation).
func unescapeMarkdown(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && isASCIIPunct(s[i+1]) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
