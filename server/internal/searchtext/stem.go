package searchtext

import (
	"hash/maphash"
	"sync/atomic"

	"github.com/kljensen/snowball/english"
)

// Stem returns the English (Porter2, Snowball) stem of w, a normalised
// word: "deploys", "deployed" and "deploying" are "deploy". A word that is
// not lower-case ASCII letters only (digits, other scripts) is its own stem.
// The stem of a word keeps its first letter, and every word with a given
// stem starts with anchor(stem).
func Stem(w string) string {
	if len(w) <= 2 || !lowerLetters(w) {
		return w
	}
	slot := &stemCache[maphash.String(stemSeed, w)&(uint64(len(stemCache))-1)]
	if e := slot.Load(); e != nil && e.word == w {
		return e.stem
	}
	s := english.Stem(w, true)
	slot.Store(&stemmed{word: cloneShort(w), stem: s})
	return s
}

// The stems of the words seen last, one per slot of a table indexed by the
// word's hash: the stemmer takes a few microseconds a word, about as long
// as the rest of a 2 KB note's tokenising, and a team's notes repeat a few
// thousand words. A slot holds the last word that hashed there; the table
// is about a megabyte at most, and safe for concurrent use.
var (
	stemCache [1 << 14]atomic.Pointer[stemmed]
	stemSeed  = maphash.MakeSeed()
)

type stemmed struct{ word, stem string }

// cloneShort copies w, so that a cached word does not keep the text it was
// cut from alive.
func cloneShort(w string) string { return string([]byte(w)) }

// lowerLetters reports whether w is lower-case ASCII letters only.
func lowerLetters[T string | []byte](w T) bool {
	for i := 0; i < len(w); i++ {
		if c := w[i]; c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

// anchor returns a prefix of every word whose stem is s (see Stem): s
// without its last letter, or its first letter alone when s has three or
// fewer ("dying", "lying" and "tying" stem to "die", "lie" and "tie"). The
// stemmer only rewrites a word's last letters ("happy" → "happi",
// "possibly" → "possibl"), never its first.
func anchor(s string) string {
	switch {
	case len(s) > 3:
		return s[:len(s)-1]
	case len(s) > 1:
		return s[:1]
	}
	return s
}
