// Package searchtext is the one tokeniser of team-memory search: it turns an
// entry into the text both stores index (its title and body), and a query
// into the terms both stores match. The normalisation is done here, in Go,
// so that SQLite's FTS5 and Postgres's tsvector see the same words and
// answer the same query the same way.
//
// A word is a maximal run of letters and digits, folded to lower case with
// its diacritics removed (NFKD, then the combining marks dropped): "Café"
// and "cafe" are one word. Everything else separates words, so an
// identifier or a path is indexed as its parts in order (pool_max_conns →
// pool max conns; server/postgres/write.go → server postgres write go) and
// found by any part, or whole as the phrase of its parts.
package searchtext

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// MaxWordBytes is the longest word indexed or searched: longer runs (a
// base64 blob, a hash) are left out. Postgres refuses words over 2047
// bytes; 64 bytes keeps every identifier.
const MaxWordBytes = 64

// MaxBodyBytes bounds the normalised body indexed per entry: the words of
// about its first 256 KiB (a Postgres tsvector holds at most 1 MB).
const MaxBodyBytes = 256 << 10

// Normalize returns text's words, separated by one space, at most about
// limit bytes of them (limit <= 0: all).
func Normalize(text string, limit int) string {
	var b strings.Builder
	eachWord(text, func(w string, _, _ int) bool {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(w)
		return limit <= 0 || b.Len() < limit
	})
	return b.String()
}

// Words returns text's words in order.
func Words(text string) []string {
	var out []string
	eachWord(text, func(w string, _, _ int) bool {
		out = append(out, w)
		return true
	})
	return out
}

// eachWord calls fn with each word of text, normalised, and the byte range
// of its original form in text, until fn returns false.
func eachWord(text string, fn func(word string, start, end int) bool) {
	start, ascii := -1, true
	flush := func(end int) bool {
		if start < 0 {
			return true
		}
		s := start
		w := text[s:end]
		if ascii {
			w = strings.ToLower(w)
		} else {
			w = fold(w)
		}
		start, ascii = -1, true
		if w == "" || len(w) > MaxWordBytes || scopeLike(w) {
			return true
		}
		return fn(w, s, end)
	}
	for i, r := range text {
		if isWordRune(r) {
			if start < 0 {
				start = i
			}
			if r >= utf8.RuneSelf {
				ascii = false
			}
			continue
		}
		if !flush(i) {
			return
		}
	}
	flush(len(text))
}

// isWordRune reports whether r belongs to a word: a letter, a digit or a
// combining mark (dropped by fold, but part of the word it accents).
func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
	}
	return r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.Mn, r))
}

// fold lower-cases w and removes its diacritics; what remains is letters
// and digits only (a compatibility decomposition may yield other runes,
// which are dropped).
func fold(w string) string {
	var b strings.Builder
	for _, r := range norm.NFKD.String(w) {
		if unicode.Is(unicode.Mn, r) || !(unicode.IsLetter(r) || unicode.IsNumber(r)) {
			continue
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}
