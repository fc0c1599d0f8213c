package protocol

import (
	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// FoldKey returns the case-folded form of key, used to detect keys that a
// case-insensitive file system (the defaults on macOS and Windows) would map to
// one file: two keys collide when their FoldKey values are equal. The server
// refuses such a new key (409 key_collision) and the agent compares paths with
// it on case-insensitive systems.
//
// It applies Unicode full case folding (golang.org/x/text/cases.Fold, so "ß"
// folds to "ss" and "Σ", "σ", "ς" to one form) and then NFC. Full folding
// merges at least every pair that the simple folding of NTFS and APFS merges,
// so it may report a collision a file system would not, never the reverse.
// The result is for comparison only, not a valid key in general. FoldKey is
// safe for concurrent use.
func FoldKey(key string) string {
	if isFoldedASCII(key) {
		return key
	}
	return norm.NFC.String(cases.Fold().String(key))
}

// isFoldedASCII reports whether key is ASCII without upper-case letters, the
// common case that folding leaves unchanged.
func isFoldedASCII(key string) bool {
	for i := 0; i < len(key); i++ {
		if c := key[i]; c >= 0x80 || ('A' <= c && c <= 'Z') {
			return false
		}
	}
	return true
}
