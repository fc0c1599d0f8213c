package teamblock

import (
	"regexp"
	"strings"

	"github.com/teammem/teammem/memcore/protocol"
)

// lineRenderer renders the index lines of one block.
type lineRenderer struct {
	teamDir string // slash-separated, no trailing slash
	exists  func(string) bool
	refused func(string) bool
	stale   func(string) Stale
	linked  *[]string // keys the line being rendered links to
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
	var linked []string
	r.linked = &linked
	out, ok := r.inline(line, true)
	if ok && r.stale != nil {
		out += staleWarning(r.stale, linked)
	}
	return out, ok
}

// inline renders a run of text: its links (protocol.Links, as every
// surface reads them) into the team folder become links to absolute paths
// (when linking; link text is rendered without), a web address keeps its
// text and shows the address in a code span, any other link keeps its text
// only, a plain code span stays as it is, and all the rest is escaped
// text.
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
	links := protocol.Links(s)
	for i := 0; i < len(s); {
		next := len(s)
		if len(links) > 0 {
			next = links[0].Start
		}
		if s[i] == '`' {
			if end, ok := plainCodeSpan(s, i, text.String(), b.String()); ok && end <= next {
				flush()
				b.WriteString(s[i:end])
				i = end
				continue
			}
		}
		if i != next {
			text.WriteByte(s[i])
			i++
			continue
		}
		l := links[0]
		links, i = links[1:], l.End
		dest, keep := r.resolve(l.Dest)
		label, labelKeep := r.inline(l.Text, false)
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
		case webRe.MatchString(l.Dest):
			b.WriteString(label + " (" + codeSpan(strings.ReplaceAll(l.Dest, "<", "&lt;")) + ")")
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

// resolve decides what a link target becomes: dest is the link
// destination of a topic file in the team folder, "" for a target that is
// not one (a URL, an absolute path, an anchor); keep is false when the line
// must be left out: its target names a file of the team folder that is
// refused or missing (a file refused at its author's never arrives), or is
// a relative path that is not a valid key or not one a link may name
// (linkableKey).
func (r lineRenderer) resolve(target string) (dest string, keep bool) {
	key, local, valid := keyOf(target)
	if !local {
		return "", true
	}
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
	if r.linked != nil {
		*r.linked = append(*r.linked, key)
	}
	return d, true
}

// keyOf returns the key that the link destination target (as written)
// names in the team folder: local is false for a target that names
// nothing in the folder (an anchor, a URL, an absolute or home path), valid
// false for a local one that climbs out of it or is no valid key.
func keyOf(target string) (key string, local, valid bool) {
	rel, local := protocol.LinkTarget(target)
	if !local {
		return "", false, false
	}
	key, valid = protocol.JoinLink("", rel)
	return key, true, valid
}
