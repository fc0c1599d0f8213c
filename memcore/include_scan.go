package memcore

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Claude Code's @-import scan (2.1.112 to 2.1.332 alike) runs the pattern
// (?:^|\s)@((?:[^\s\\]|\\ )+) over the text of Markdown tokens: the raw
// text of a list item's paragraphs (link destinations, titles and code
// spans included), and the text between the other inline tokens of every
// other paragraph and heading, where a backslash escape is a token of its
// own (so "\@x" is never read and the "@x" of "\\@x" starts a token). The
// path is cut at "#"; code blocks, code spans, HTML and link destinations
// outside list items are not scanned. scanIncludeTokens models that scan.

// isScanSpace reports whether r counts as whitespace before an "@" or as
// the end of a path: JavaScript's \s (which includes U+FEFF) together with
// Go's unicode.IsSpace (which includes U+0085), so the model never misses
// a token the client reads.
func isScanSpace(r rune) bool { return unicode.IsSpace(r) || r == '\uFEFF' }

// scanIncludeTokens appends to dst the include paths written in one run of
// Markdown text: a token starting with `@` at the start of the run or after
// whitespace, made of non-space characters where `\ ` escapes a space. The
// `#fragment` is dropped and tokens that cannot be paths (`@`, `@@x`, `@#x`)
// are skipped. With raw false the run is inline text, where a backslash
// before ASCII punctuation escapes it: an escaped "@" is not read, and the
// character after an escape starts a token of its own. With raw true the
// run is scanned as it is written (a list item's text). Paths are returned
// unresolved.
func scanIncludeTokens(dst []string, text string, raw bool) []string {
	tokenStart := 0 // the offset after the last escape: a token of its own begins there
	for i := 0; i < len(text); i++ {
		if !raw && text[i] == '\\' && i+1 < len(text) && isASCIIPunct(text[i+1]) {
			i++
			tokenStart = i + 1
			continue
		}
		if text[i] != '@' || (i != tokenStart && !afterSpace(text, i)) {
			continue
		}
		tok, end := readIncludeToken(text, i+1)
		i = end - 1
		if p, ok := cleanIncludeToken(tok); ok {
			dst = append(dst, p)
		}
	}
	return dst
}

// isASCIIPunct reports whether c is ASCII punctuation, which a backslash
// escapes in Markdown.
func isASCIIPunct(c byte) bool {
	return strings.IndexByte("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", c) >= 0
}

// afterSpace reports whether position i > 0 follows whitespace.
func afterSpace(text string, i int) bool {
	r, _ := utf8.DecodeLastRuneInString(text[:i])
	return isScanSpace(r)
}

// readIncludeToken reads from start while the text is a non-space,
// non-backslash character or an escaped space `\ `.
func readIncludeToken(text string, start int) (tok string, end int) {
	i := start
	for i < len(text) {
		if text[i] == '\\' {
			if i+1 < len(text) && text[i+1] == ' ' {
				i += 2
				continue
			}
			break
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		if isScanSpace(r) {
			break
		}
		i += size
	}
	return text[start:i], i
}

// cleanIncludeToken drops the fragment, unescapes spaces and checks that the
// token looks like a path: ./ ../ ~/ /abs, or starting with a letter, digit,
// `.`, `_` or `-`.
func cleanIncludeToken(tok string) (string, bool) {
	if h := strings.IndexByte(tok, '#'); h >= 0 {
		tok = tok[:h]
	}
	tok = strings.ReplaceAll(tok, `\ `, " ")
	switch {
	case tok == "" || tok == "/":
		return "", false
	case strings.HasPrefix(tok, "~/") || strings.HasPrefix(tok, "/"):
		return tok, true
	}
	r, _ := utf8.DecodeRuneInString(tok)
	if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '.' || r == '_' || r == '-' {
		return tok, true
	}
	return "", false
}
