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
// found by any part, or whole as the phrase of its parts. A camelCase word
// (ASCII) stays one word, and its parts are indexed too, after the text's
// words (see CamelParts): RetryPush is found by "RetryPush", "retrypush",
// "retry push" and "push"; MySQL by "mysql" as by "MySQL".
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
		writeWord(&b, w)
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
	emit := func(w string, s, end int) bool {
		if w == "" || len(w) > MaxWordBytes || scopeLike(w) {
			return true
		}
		return fn(w, s, end)
	}
	flush := func(end int) bool {
		if start < 0 {
			return true
		}
		s := start
		start = -1
		if !ascii {
			ascii = true
			return emit(fold(text[s:end]), s, end)
		}
		return emit(strings.ToLower(text[s:end]), s, end)
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

// CamelParts returns the parts of text's camelCase words (see
// camelBoundary), in order, separated by one space: "use RetryPush and
// MySQL" → "retry push my sql". A store indexes them after the words
// themselves, so that "retry push" (or the phrase) finds RetryPush while
// the word stays whole for "RetryPush", "retrypush" and "MySQL".
func CamelParts(text string, limit int) string {
	var b strings.Builder
	eachWord(text, func(_ string, s, end int) bool {
		writeCamelParts(&b, text[s:end])
		return limit <= 0 || b.Len() < limit
	})
	return b.String()
}

// WordsAndParts returns Normalize(text, limit) followed by the camelCase
// parts of those words (at most about partsLimit bytes of them), reading
// text once.
func WordsAndParts(text string, limit, partsLimit int) string {
	var words, parts strings.Builder
	eachWord(text, func(w string, s, end int) bool {
		writeWord(&words, w)
		if parts.Len() < partsLimit {
			writeCamelParts(&parts, text[s:end])
		}
		return limit <= 0 || words.Len() < limit
	})
	if parts.Len() == 0 {
		return words.String()
	}
	return words.String() + " " + parts.String()
}

// writeCamelParts writes the parts of word (as it stands in the text) when
// it is a camelCase word of ASCII letters and digits.
func writeCamelParts(b *strings.Builder, word string) {
	for i := 0; i < len(word); i++ {
		if word[i] >= utf8.RuneSelf {
			return
		}
	}
	from := 0
	for i := 1; i < len(word); i++ {
		if camelBoundary(word, i, len(word)) {
			writeWord(b, strings.ToLower(word[from:i]))
			from = i
		}
	}
	if from > 0 {
		writeWord(b, strings.ToLower(word[from:]))
	}
}

func writeWord(b *strings.Builder, w string) {
	if b.Len() > 0 {
		b.WriteByte(' ')
	}
	b.WriteString(w)
}

// camelBoundary reports whether a part of a camelCase word (ASCII letters
// and digits) starts at text[i], i inside the word ending at end: an upper
// case letter after a lower case one or a digit (retryPush, v2Config), or
// the last capital of an acronym followed by lower case (HTTPClient).
func camelBoundary(text string, i, end int) bool {
	c, p := text[i], text[i-1]
	if !isUpper(c) {
		return false
	}
	if isLower(p) || p >= '0' && p <= '9' {
		return true
	}
	return isUpper(p) && i+1 < end && isLower(text[i+1])
}

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }
func isLower(c byte) bool { return c >= 'a' && c <= 'z' }

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
