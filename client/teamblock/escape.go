package teamblock

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/teammem/teammem/client/assistants"
)

// cleanLine makes one index line safe to write: invalid UTF-8 becomes
// U+FFFD, a final CR goes, and control characters (NUL would make the whole
// file look binary to the loader) and the Unicode line and paragraph
// separators are dropped; tabs stay.
func cleanLine(s string) string {
	s = strings.TrimSuffix(strings.ToValidUTF8(s, "\uFFFD"), "\r")
	return strings.Map(func(r rune) rune {
		if r == '\t' {
			return r
		}
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return -1
		}
		return r
	}, s)
}

// escapeText writes text so that Markdown reads it as plain text. Every
// "<" becomes "&lt;", so no HTML (and so no HTML comment, no marker) can
// start; a backslash goes before every character that could start a link,
// an image, a code span or a code fence, before every "|" (an index line
// such as "-|-" would otherwise be a table's delimiter row, making the line
// above a header row, whose cells GFM splits at a "|" even inside a code
// span: a stale reference's code span "`x[](y)|`" would then open a link),
// and before an "&" that would start a character reference; every word that holds an @ (an @include, an e-mail
// address) or looks like a web address (which GitHub-flavoured Markdown
// links by itself) is put in a code span, where neither includes nor links
// are recognised.
func escapeText(s string) string {
	var b strings.Builder
	for len(s) > 0 {
		i := strings.IndexFunc(s, unicode.IsSpace)
		if i == 0 {
			_, size := utf8.DecodeRuneInString(s)
			b.WriteString(s[:size])
			s = s[size:]
			continue
		}
		if i < 0 {
			i = len(s)
		}
		writeWord(&b, s[:i])
		s = s[i:]
	}
	return b.String()
}

// writeWord writes one word of escapeText.
func writeWord(b *strings.Builder, w string) {
	if inertWord(w) {
		b.WriteString(codeSpan(strings.ReplaceAll(w, "<", "&lt;")))
		return
	}
	for i, r := range w {
		switch {
		case r == '<':
			b.WriteString("&lt;")
			continue
		case strings.ContainsRune("\\`[]~|", r), r == '&' && startsReference(w[i+1:]):
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
}

// inertWord reports whether a word must go in a code span: it holds an @
// or looks like a web address.
func inertWord(w string) bool {
	return strings.Contains(w, "@") || strings.Contains(w, "://") || strings.Contains(strings.ToLower(w), "www.")
}

// startsReference reports whether the text after an "&" would make it a
// character reference: "#" or letters and digits followed by ";".
func startsReference(s string) bool {
	if strings.HasPrefix(s, "#") {
		return true
	}
	i := strings.IndexFunc(s, func(r rune) bool { return !(r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r))) })
	return i > 0 && s[i] == ';'
}

// codeSpan wraps s (no line break) in a code span whose backtick runs are
// longer than any in s.
func codeSpan(s string) string {
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// inlinePath shows a path in running text: as a code span, or escaped text
// when it holds a character a code span would show wrongly.
func inlinePath(p string) string {
	if strings.ContainsAny(p, "`<>") || cleanLine(p) != p {
		return escapeText(cleanLine(p))
	}
	return codeSpan(p)
}

// destination writes an absolute path as a link destination, in angle
// brackets when it holds a space or a parenthesis; ok is false when no
// destination can hold it (angle brackets, line breaks, control
// characters).
func destination(p string) (string, bool) {
	if strings.ContainsAny(p, "<>") || cleanLine(p) != p || strings.ContainsAny(p, "\t") {
		return "", false
	}
	var b strings.Builder
	for _, r := range p {
		if r == '\\' {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	d := b.String()
	if strings.ContainsAny(d, " ()") || strings.ContainsFunc(d, unicode.IsSpace) {
		return "<" + d + ">", true
	}
	return d, true
}

// isAtSign reports whether r is "@" or one of the two characters whose
// compatibility form is "@" (U+FE6B, U+FF20): what an @-import scan reads,
// or would after Unicode normalisation.
func isAtSign(r rune) bool { return r == '@' || r == '\uFE6B' || r == '\uFF20' }

// guardAt puts a backslash before every at sign of s that an @-import
// scan could read: one that follows neither a letter, digit or mark nor an
// odd run of backslashes. Claude Code's scan reads an "@" at the start of
// a token's text or after whitespace, over the raw text of a list item
// (link destinations and code spans included) and over the text between
// the inline tokens of other paragraphs. A letter, digit or mark is none
// of those and ends no inline token (code spans, links, emphasis, HTML
// and escapes all end in punctuation), so "ana@example.com" and a home
// folder such as /home/ana@corp stay as they are, links to it still open.
// Before any other at sign the backslash makes the run odd: a raw scan
// then finds a backslash, not the start or a space, before the sign; a
// Markdown scan finds an escaped "@" (the last backslash of an odd run
// escapes it, the ones before pair up), which no scan reads. Outside a
// code span the reader sees "@"; in a code span, "\@".
// guardAt(guardAt(s)) == guardAt(s).
func guardAt(s string) string {
	if !strings.ContainsFunc(s, isAtSign) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	run, prev := 0, rune(-1) // backslashes just written; the rune before them
	for _, r := range s {
		if isAtSign(r) && !atSignSafe(run, prev) {
			b.WriteByte('\\')
		}
		if r == '\\' {
			run++
		} else {
			run, prev = 0, r
		}
		b.WriteRune(r)
	}
	return b.String()
}

// atSignSafe reports whether an at sign after run backslashes that follow
// rune prev (-1 at the start) is one no @-import scan reads.
func atSignSafe(run int, prev rune) bool {
	if run > 0 {
		return run%2 == 1
	}
	return prev >= 0 && (unicode.IsLetter(prev) || unicode.IsDigit(prev) || unicode.IsMark(prev))
}

// linkableKey reports whether a link to key may be written: it holds no
// at sign and no whitespace but the ASCII space (the key grammar refuses
// both; this holds even for a key that got past it). Such a key is left
// out of the block rather than linked.
func linkableKey(key string) bool {
	return !strings.ContainsFunc(key, func(r rune) bool {
		return isAtSign(r) || r != ' ' && (unicode.IsSpace(r) || r == '\uFEFF')
	})
}

// guardHashRefs neutralises the "#kind:" references of a's instruction
// file for each of a.HashRefs (GitHub Copilot's "#file:", "#tool:",
// "#sym:" and "#prompt:"; Visual Studio loads the file a line of
// "#file:'path'" names): a backslash before the "#" (which Markdown shows
// as "#") unless one is there already. Without HashRefs s is returned as
// it is.
func guardHashRefs(a assistants.Assistant, s string) string {
	if len(a.HashRefs) == 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '#' && (i == 0 || s[i-1] != '\\') {
			rest := strings.ToLower(s[i+1:])
			if slices.ContainsFunc(a.HashRefs, func(kind string) bool { return strings.HasPrefix(rest, kind+":") }) {
				b.WriteByte('\\')
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
