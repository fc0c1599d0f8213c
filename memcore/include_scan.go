package memcore

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// scanIncludeTokens appends to dst the include paths written in one run of
// Markdown text: a token starting with `@` at the start of the run or after
// whitespace, made of non-space characters where `\ ` escapes a space. The
// `#fragment` is dropped and tokens that cannot be paths (`@`, `@@x`, `@#x`)
// are skipped. Paths are returned unresolved.
func scanIncludeTokens(dst []string, text string) []string {
	for i := 0; i < len(text); i++ {
		if text[i] != '@' || !atTokenStart(text, i) {
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

// atTokenStart reports whether position i begins the text or follows
// whitespace.
func atTokenStart(text string, i int) bool {
	if i == 0 {
		return true
	}
	r, _ := utf8.DecodeLastRuneInString(text[:i])
	return unicode.IsSpace(r)
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
		if unicode.IsSpace(r) {
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
