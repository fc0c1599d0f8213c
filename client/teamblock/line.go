package teamblock

import (
	"net/url"
	"regexp"
	"strings"

	"github.com/teammem/teammem/memcore/protocol"
)

// lineRenderer renders the index lines of one block.
type lineRenderer struct {
	teamDir string // slash-separated, no trailing slash
	exists  func(string) bool
	refused func(string) bool
}

// render renders one index line. It returns ok false for a line to leave
// out: one that links to a file the agent refused to share or that is not
// in the team folder, or to a path that is not a valid key of the team
// folder (one that climbs out of it with "..", for example). Single-line HTML comments are dropped as the
// loader would drop them.
func (r lineRenderer) render(line string) (string, bool) {
	line = cleanLine(line)
	if t := strings.TrimSpace(line); strings.HasPrefix(t, "<!--") && strings.HasSuffix(t, "-->") {
		return "", true
	}
	return r.inline(line, true)
}

// inline renders a run of text: links into the team folder become links
// to absolute paths (when linking; link text is rendered without), a web
// address keeps its text and shows the address in a code span, any other
// link keeps its text only, a plain code span stays as it is, and all the
// rest is escaped text.
func (r lineRenderer) inline(s string, linking bool) (string, bool) {
	var b, text strings.Builder
	flush := func() {
		e := escapeText(text.String())
		text.Reset()
		// A word put in a code span right after other output (a link's
		// label) gets a space first: GFM's e-mail autolink would otherwise
		// read the text before it, the backtick and the @ as one address.
		if strings.HasPrefix(e, "`") && b.Len() > 0 && !strings.HasSuffix(b.String(), " ") {
			b.WriteByte(' ')
		}
		b.WriteString(e)
	}
	for i := 0; i < len(s); {
		if s[i] == '`' {
			if end, ok := plainCodeSpan(s, i, text.String(), b.String()); ok {
				flush()
				b.WriteString(s[i:end])
				i = end
				continue
			}
		}
		l, ok := link{}, false
		if s[i] == '[' {
			l, ok = parseLink(s, i)
		}
		if !ok {
			text.WriteByte(s[i])
			i++
			continue
		}
		i = l.end
		dest, keep := r.resolve(l.target)
		label, labelKeep := r.inline(l.text, false)
		if !keep || !labelKeep {
			return "", false
		}
		flush()
		switch {
		case dest != "" && linking:
			if out := b.String(); strings.HasSuffix(out, "!") { // a link, not an image
				b.Reset()
				b.WriteString(out[:len(out)-1] + `\!`)
			}
			b.WriteString("[" + label + "](" + dest + ")")
		case webRe.MatchString(l.target):
			b.WriteString(label + " (" + codeSpan(strings.ReplaceAll(l.target, "<", "&lt;")) + ")")
		default:
			b.WriteString(label)
		}
	}
	flush()
	return b.String(), true
}

// plainCodeSpan reports whether s[i:end] is a code span that may be
// written as it is: one backtick on each side, text without a backtick or
// "<!--" between them, and nothing next to it that could pair its
// backticks differently — no backtick in the output just before (out) and
// no word touching it that escapeText would put in a code span of its own
// (before is the text still to be escaped before it).
func plainCodeSpan(s string, i int, before, out string) (end int, ok bool) {
	j := strings.IndexByte(s[i+1:], '`')
	if j <= 0 || i > 0 && s[i-1] == '`' {
		return 0, false
	}
	end = i + 1 + j + 1
	if end < len(s) && s[end] == '`' || strings.Contains(s[i+1:end-1], "<!--") {
		return 0, false
	}
	if before == "" && strings.HasSuffix(out, "`") {
		return 0, false
	}
	after := s[end:]
	if k := strings.IndexAny(after, " \t"); k >= 0 {
		after = after[:k]
	}
	if k := strings.LastIndexAny(before, " \t"); k >= 0 {
		before = before[k+1:]
	}
	if inertWord(before) || inertWord(after) {
		return 0, false
	}
	return end, true
}

// webRe matches a web address.
var webRe = regexp.MustCompile(`(?i)^https?://[^\s<>]+$`)

// schemeRe matches a URL scheme (javascript:, https:, mailto:, C: …).
var schemeRe = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)

// resolve decides what a link target becomes: dest is the link
// destination of a topic file in the team folder, "" for a target that is
// not one (a URL, an absolute path, an anchor); keep is false when the line
// must be left out: its target names a file of the team folder that is
// refused or missing (a file refused at its author's never arrives), or is
// a relative path that is not a valid key or not one a link may name
// (linkableKey).
func (r lineRenderer) resolve(target string) (dest string, keep bool) {
	t, inFolder := linkPath(target)
	if !inFolder {
		return "", true
	}
	key, valid := keyOf(t)
	if !valid || !linkableKey(key) || (r.refused != nil && r.refused(key)) {
		return "", false
	}
	if r.exists != nil && !r.exists(key) {
		return "", false // not here (never shared, or refused at its author's): nothing to open
	}
	d, ok := destination(r.teamDir + "/" + key)
	if !ok {
		return "", true
	}
	return d, true
}

// linkPath reads a link's target as a relative path: without angle
// brackets, Markdown escapes, query, fragment and leading "./". inFolder
// is false for a target that names nothing in the folder: empty, an
// anchor, a URL, an absolute or home path.
func linkPath(target string) (p string, inFolder bool) {
	t := target
	if strings.HasPrefix(t, "<") && strings.HasSuffix(t, ">") {
		t = t[1 : len(t)-1]
	}
	t = unescapeMarkdown(t)
	if t == "" || strings.HasPrefix(t, "#") || schemeRe.MatchString(t) || strings.HasPrefix(t, "/") ||
		strings.HasPrefix(t, `\`) || strings.HasPrefix(t, "~/") {
		return "", false
	}
	if i := strings.IndexAny(t, "#?"); i >= 0 {
		t = t[:i]
	}
	for strings.HasPrefix(t, "./") {
		t = t[2:]
	}
	return t, true
}

// keyOf returns the key a relative path names: the path itself when it is
// a valid key, else its percent-decoding; valid is false when neither is.
func keyOf(p string) (key string, valid bool) {
	key = p
	if protocol.ValidateKey(key) != nil {
		if u, err := url.PathUnescape(p); err == nil {
			key = u
		}
	}
	return key, protocol.ValidateKey(key) == nil
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

func isASCIIPunct(c byte) bool {
	return strings.IndexByte("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", c) >= 0
}
