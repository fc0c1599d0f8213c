package protocol

import (
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Per-rune facts that ValidateKey needs for non-ASCII runes.
const (
	// runeAllowed: a visible letter, mark or decimal digit (isKeyRune).
	runeAllowed uint8 = 1 << iota
	// runeNFCInert: NFC quick check "yes" with combining class 0, so a string
	// made only of such runes (and ASCII) is in NFC without further checks.
	runeNFCInert
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
	}
	var buf [utf8.UTFMax]byte
	b := buf[:utf8.EncodeRune(buf[:], r)]
	if p := norm.NFC.Properties(b); p.BoundaryBefore() && p.CCC() == 0 && norm.NFC.IsNormal(b) {
		f |= runeNFCInert
	}
	return f
}

// isKeyRune reports whether non-ASCII r is a visible letter, mark or decimal
// digit. Letters and marks that render as nothing (Hangul fillers, the
// combining grapheme joiner, variation selectors) are refused like the
// zero-width format characters, since they make look-alike names.
func isKeyRune(r rune) bool {
	return (unicode.IsLetter(r) || unicode.IsMark(r) || unicode.IsDigit(r)) &&
		!unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r) &&
		!unicode.Is(unicode.Variation_Selector, r)
}
