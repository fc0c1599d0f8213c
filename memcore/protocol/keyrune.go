package protocol

import (
	"strings"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Per-rune facts that ValidateKey needs for non-ASCII runes.
const (
	// runeAllowed: a character a key may hold anywhere (isKeyRune).
	runeAllowed uint8 = 1 << iota
	// runeNFCInert: NFC quick check "yes" with combining class 0, so a string
	// made only of such runes (and ASCII) is in NFC without further checks.
	runeNFCInert
	// runeSymbol: a non-ASCII symbol (Sc, Sk, So) that a key may hold, which
	// U+200D, U+FE0E and U+FE0F may follow in an emoji sequence.
	runeSymbol
	// runeSelector: U+FE0E or U+FE0F after a symbol, which U+200D may
	// follow but another selector may not (set by keyProblem, never cached).
	runeSelector
)

// runeBlocks caches runeFlags for the Basic Multilingual Plane, one block of
// 256 runes at a time, built on first use. Goroutines that race to build a
// block build equal ones, so the last store winning is harmless.
var runeBlocks [256]atomic.Pointer[[256]uint8]

// runeFlags returns the facts about r, from the cache when r is in the BMP.
func runeFlags(r rune) uint8 {
	if r > 0xFFFF {
		return computeRuneFlags(r)
	}
	hi := r >> 8
	block := runeBlocks[hi].Load()
	if block == nil {
		block = new([256]uint8)
		for lo := range block {
			block[lo] = computeRuneFlags(hi<<8 | rune(lo))
		}
		runeBlocks[hi].Store(block)
	}
	return block[r&0xFF]
}

// computeRuneFlags works out the facts about r.
func computeRuneFlags(r rune) uint8 {
	var f uint8
	if isKeyRune(r) {
		f |= runeAllowed
		if unicode.In(r, unicode.Sc, unicode.Sk, unicode.So) {
			f |= runeSymbol
		}
	}
	var buf [utf8.UTFMax]byte
	b := buf[:utf8.EncodeRune(buf[:], r)]
	if p := norm.NFC.Properties(b); p.BoundaryBefore() && p.CCC() == 0 && norm.NFC.IsNormal(b) {
		f |= runeNFCInert
	}
	return f
}

// isKeyRune reports whether non-ASCII r may occur anywhere in a key: a
// letter, mark or decimal digit of any script, or a dash, bracket, quotation
// mark or symbol of the categories Pd, Ps, Pe, Pi, Pf, Sc, Sk and So. Refused
// among those: characters that render as nothing (Hangul fillers, the
// combining grapheme joiner, variation selectors), which make look-alike
// names; those whose NFKC form holds a separator, a dot or a character
// Windows refuses; and lookAlikes. The bidirectional controls, format
// characters outside those categories, are named too: every surface that
// refuses them asks IsBidiControl.
func isKeyRune(r rune) bool {
	return r >= utf8.RuneSelf &&
		unicode.In(r, unicode.L, unicode.M, unicode.Nd, unicode.Pd, unicode.Ps, unicode.Pe,
			unicode.Pi, unicode.Pf, unicode.Sc, unicode.Sk, unicode.So) &&
		!unicode.In(r, unicode.Other_Default_Ignorable_Code_Point, unicode.Variation_Selector) &&
		!IsBidiControl(r) &&
		!strings.ContainsRune(lookAlikes, r) &&
		!strings.ContainsAny(norm.NFKC.String(string(r)), "/\\.:*?\"<>|")
}

// lookAlikes are the symbols of allowed categories that look like "/", "\"
// or "." (the box-drawing diagonals U+2571 and U+2572, the CJK strokes U+31D3
// and U+31D4) and the replacement characters U+FFFC and U+FFFD, which stand
// for something that is not there.
const lookAlikes = "\u2571\u2572\u31D3\u31D4\uFFFC\uFFFD"
