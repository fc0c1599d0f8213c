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
//
// Words of prose are indexed and searched by their English stem, so that
// "deploy" finds "Deploys" and "deploying"; identifiers and their parts
// are not (see tokens.go): the index holds each word as IndexText gives
// it, and a query term matches either that form or its words as typed
// (see Term).
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
	var b []byte
	eachRaw(text, 0, func(raw string, _ int, folded string) bool {
		b = appendNormalized(b, raw, folded)
		return limit <= 0 || len(b) < limit
	})
	return string(b)
}

// eachWord calls fn with each word of text, normalised, and the byte range
// of its original form in text, until fn returns false.
func eachWord(text string, fn func(word string, start, end int) bool) {
	eachRaw(text, 0, func(raw string, start int, folded string) bool {
		return fn(normalized(raw, folded), start, start+len(raw))
	})
}

// eachRaw calls fn with each word of text from byte from on (a word's
// start, or between two words) as it stands in text (raw, from byte
// start), until fn returns false. A word that is not ASCII comes
// folded too (see fold); folded is "" for an ASCII word, which is
// normalised by lowering its case alone (see appendNormalized). The words
// left out of the index (see keep) are not passed. It reads text a byte at
// a time, decoding a rune only past ASCII: a 2 KB note takes a few
// microseconds, and every put reads one.
func eachRaw(text string, from int, fn func(raw string, start int, folded string) bool) {
	for i := from; i < len(text); {
		if c := text[i]; c < utf8.RuneSelf {
			if !asciiWord[c] {
				i++
				continue
			}
		} else if r, size := utf8.DecodeRuneInString(text[i:]); !isWordRune(r) {
			i += size
			continue
		}
		start, ascii := i, true
		for i < len(text) {
			if c := text[i]; c < utf8.RuneSelf {
				if !asciiWord[c] {
					break
				}
				i++
				continue
			}
			r, size := utf8.DecodeRuneInString(text[i:])
			if !isWordRune(r) {
				break
			}
			ascii = false
			i += size
		}
		raw, folded := text[start:i], ""
		if !ascii {
			if folded = fold(raw); folded == "" {
				continue // marks alone, or runes fold drops
			}
		}
		if keep(raw, folded) && !fn(raw, start, folded) {
			return
		}
	}
}

// keep reports whether the word raw (folded, when not ASCII) is indexed
// and searched: at most MaxWordBytes long once normalised and not shaped
// like a scope token (see scopeLike, which ignores ASCII case).
func keep(raw, folded string) bool {
	if folded != "" {
		raw = folded
	}
	return len(raw) <= MaxWordBytes && !scopeLike(raw)
}

// appendNormalized appends the word raw (see eachRaw), normalised, to b,
// after a space unless b is empty.
func appendNormalized(b []byte, raw, folded string) []byte {
	if len(b) > 0 {
		b = append(b, ' ')
	}
	switch {
	case folded != "":
		return append(b, folded...)
	case !hasUpper(raw):
		return append(b, raw...)
	}
	for i := 0; i < len(raw); i++ {
		b = append(b, lowerASCII(raw[i]))
	}
	return b
}

// asciiWord marks the ASCII bytes that belong to a word: letters and
// digits.
var asciiWord = func() (t [utf8.RuneSelf]bool) {
	for c := range utf8.RuneSelf {
		t[c] = isWordRune(rune(c))
	}
	return t
}()

func hasUpper(s string) bool {
	for i := 0; i < len(s); i++ {
		if isUpper(s[i]) {
			return true
		}
	}
	return false
}

func lowerASCII(c byte) byte {
	if isUpper(c) {
		return c + 'a' - 'A'
	}
	return c
}

// CamelParts returns the parts of text's camelCase words (see
// camelBoundary), in order, separated by one space: "use RetryPush and
// MySQL" → "retry push my sql". A store indexes them after the words
// themselves, so that "retry push" (or the phrase) finds RetryPush while
// the word stays whole for "RetryPush", "retrypush" and "MySQL".
func CamelParts(text string, limit int) string {
	var b []byte
	eachRaw(text, 0, func(raw string, _ int, folded string) bool {
		if folded == "" {
			b = appendCamelParts(b, raw)
		}
		return limit <= 0 || len(b) < limit
	})
	return string(b)
}

// WordsAndParts returns IndexText(text, limit) followed by the camelCase
// parts of those words (at most about partsLimit bytes of them), reading
// text once.
func WordsAndParts(text string, limit, partsLimit int) string {
	words := make([]byte, 0, min(len(text), limit+MaxWordBytes+1))
	var parts []byte
	eachToken(text, 0, func(raw string, _ int, folded string, plain bool) bool {
		words = appendIndexed(words, raw, folded, plain)
		if folded == "" && len(parts) < partsLimit {
			parts = appendCamelParts(parts, raw)
		}
		return limit <= 0 || len(words) < limit
	})
	if len(parts) > 0 {
		words = append(append(words, ' '), parts...)
	}
	return string(words)
}

// appendCamelParts appends the parts of word, ASCII letters and digits as
// it stands in the text, to b when it is a camelCase word.
func appendCamelParts(b []byte, word string) []byte {
	if len(word) < 2 || !hasUpper(word[1:]) { // no part starts past the first letter
		return b
	}
	from := 0
	for i := 1; i < len(word); i++ {
		if camelBoundary(word, i, len(word)) {
			b = appendNormalized(b, word[from:i], "")
			from = i
		}
	}
	if from > 0 {
		b = appendNormalized(b, word[from:], "")
	}
	return b
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
