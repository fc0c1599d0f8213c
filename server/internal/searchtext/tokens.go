package searchtext

import (
	"hash/maphash"
	"unicode/utf8"
)

// A plain word is a word of prose, indexed and searched by its stem (see
// Stem): it is joined to no other word but by spaces or punctuation that
// ends or brackets a word, and it is no camelCase word. The other words
// are identifiers and their parts — pool_max_conns, server/postgres/write.go,
// os.Root, user@host, RetryPush, v2 — indexed as they are written, never
// stemmed: an identifier is found by its exact parts, whole as their
// phrase, and "conn" does not find pool_max_conns.
//
// Two words are joined when only joiner characters (joiners) stand
// between them. A hyphen is no joiner: "well-known" and "re-deploy" are
// prose.
var joiners = func() (t [utf8.RuneSelf]bool) {
	for _, c := range []byte(`_./\:@#=+~$%&|`) {
		t[c] = true
	}
	return t
}()

// eachToken calls fn with each word of text from byte from on, as eachRaw
// does, and whether it is plain, until fn returns false.
func eachToken(text string, from int, fn func(raw string, start int, folded string, plain bool) bool) {
	eachRaw(text, from, func(raw string, start int, folded string) bool {
		return fn(raw, start, folded, isPlain(text, start, start+len(raw), raw, folded))
	})
}

// isPlain reports whether the word raw (folded, when not ASCII) at
// text[start:end] is plain.
func isPlain(text string, start, end int, raw, folded string) bool {
	if folded == "" && isCamel(raw) {
		return false
	}
	return !joinedBefore(text, start) && !joinedAfter(text, end)
}

// isCamel reports whether the ASCII word w mixes cases past its first
// letter (RetryPush, MySQL, iOS, APIs); "Deploys" and "DEPLOYS" do not.
func isCamel(w string) bool {
	if !hasUpper(w[1:]) {
		return false
	}
	for i := 0; i < len(w); i++ {
		if isLower(w[i]) {
			return true
		}
	}
	return false
}

// joinedBefore reports whether joiners, and then a word, stand right
// before text[start].
func joinedBefore(text string, start int) bool {
	i := start
	for i > 0 && joinerAt(text[i-1]) {
		i--
	}
	if i == start || i == 0 {
		return false
	}
	if c := text[i-1]; c < utf8.RuneSelf {
		return asciiWord[c]
	}
	r, _ := utf8.DecodeLastRuneInString(text[:i])
	return isWordRune(r)
}

// joinedAfter reports whether joiners, and then a word, stand from
// text[end] on.
func joinedAfter(text string, end int) bool {
	i := end
	for i < len(text) && joinerAt(text[i]) {
		i++
	}
	if i == end || i == len(text) {
		return false
	}
	if c := text[i]; c < utf8.RuneSelf {
		return asciiWord[c]
	}
	r, _ := utf8.DecodeRuneInString(text[i:])
	return isWordRune(r)
}

func joinerAt(c byte) bool { return c < utf8.RuneSelf && joiners[c] }

// IndexText returns text's words as the index holds them, separated by one
// space: plain words by their stems, the others normalised (see
// Normalize); at most about limit bytes of them (limit <= 0: all).
func IndexText(text string, limit int) string {
	var b []byte
	eachToken(text, 0, func(raw string, _ int, folded string, plain bool) bool {
		b = appendIndexed(b, raw, folded, plain)
		return limit <= 0 || len(b) < limit
	})
	return string(b)
}

// appendIndexed appends the word raw (see eachToken) to b as the index
// holds it, after a space unless b is empty.
func appendIndexed(b []byte, raw, folded string, plain bool) []byte {
	switch {
	case !plain:
		return appendNormalized(b, raw, folded)
	case folded != "":
		return appendWord(b, Stem(folded))
	case !hasUpper(raw):
		return appendWord(b, Stem(raw))
	}
	b = appendNormalized(b, raw, "")
	start := len(b) - len(raw)
	if s, ok := stemBytes(b[start:]); ok {
		b = append(b[:start], s...)
	}
	return b
}

// appendWord appends w to b, after a space unless b is empty.
func appendWord(b []byte, w string) []byte {
	if len(b) > 0 {
		b = append(b, ' ')
	}
	return append(b, w...)
}

// stemBytes is Stem of the word w; ok is false when w is its own stem
// without looking it up. A word found in the cache costs no allocation.
func stemBytes(w []byte) (s string, ok bool) {
	if len(w) <= 2 || !lowerLetters(w) {
		return "", false
	}
	if e := stemCache[maphash.Bytes(stemSeed, w)&(uint64(len(stemCache))-1)].Load(); e != nil && e.word == string(w) {
		return e.stem, true
	}
	return Stem(string(w)), true
}

// normalized returns the word raw (see eachRaw) normalised.
func normalized(raw, folded string) string {
	switch {
	case folded != "":
		return folded
	case hasUpper(raw):
		return string(appendNormalized(nil, raw, ""))
	}
	return raw
}
