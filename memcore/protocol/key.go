package protocol

// Keys (spec/memcore.md §8, protocol.md §2): the rules are on ValidateKey.

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// IndexName is the name of a memory index ("MEMORY.md"): the entrypoint
// of a memory folder, and at any depth of the team folder a list of
// independent lines.
const IndexName = "MEMORY.md"

// Limits on keys.
const (
	// MaxKeyBytes is the longest key, in bytes.
	MaxKeyBytes = 512
	// MaxSegmentBytes is the longest segment of a key, in bytes.
	MaxSegmentBytes = 255
	// MaxKeyDepth is the largest number of segments in a key.
	MaxKeyDepth = 16
)

// ErrInvalidKey is wrapped by every error ValidateKey returns.
var ErrInvalidKey = errors.New("invalid key")

// KeyError reports why a key is invalid. errors.Is(err, ErrInvalidKey) holds
// for every KeyError.
type KeyError struct {
	// Key is the offending key, verbatim.
	Key string
	// Reason says which rule it breaks.
	Reason string
}

// Error quotes the key with %q, so control characters in a hostile key never
// reach a terminal or a log line raw.
func (e *KeyError) Error() string {
	return fmt.Sprintf("invalid key %q: %s", e.Key, e.Reason)
}

// Unwrap returns ErrInvalidKey.
func (e *KeyError) Unwrap() error { return ErrInvalidKey }

// asciiAllowed marks the ASCII bytes a key may contain ("/" is the separator
// and handled apart).
var asciiAllowed = func() (t [utf8.RuneSelf]bool) {
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = true, true
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for _, c := range " !#$%&'()+,-.;=[]^_`{}~" {
		t[c] = true
	}
	return t
}()

// Characters allowed only inside an emoji sequence.
const (
	zeroWidthJoiner = '\u200D'
	textSelector    = '\uFE0E'
	emojiSelector   = '\uFE0F'
)

// ValidateKey reports whether key may name a memory file: nil when it may,
// otherwise a *KeyError wrapping ErrInvalidKey. It is safe for concurrent use
// and does not allocate for a valid key.
//
// A key is the slash-separated relative path of a memory file as stored on the
// server, for example "MEMORY.md" or "decisions/2026-05 db choice.md". The
// server validates every uploaded key with ValidateKey and the agent every key
// it receives, so both ends agree on what may become a file. The rule
// (spec/memcore.md §8) accepts every name a person would give a note and
// refuses everything that can escape the folder, alias another file, hide
// what it is, or cannot be written on Windows:
//
//   - valid UTF-8 already in NFC; 1–512 bytes (MaxKeyBytes); 1–16 segments
//     (MaxKeyDepth) of 1–255 bytes (MaxSegmentBytes) separated by "/", so no
//     empty segment and no leading or trailing "/";
//   - every character is a letter, mark or decimal digit of any script
//     (Unicode L, M, Nd); the ASCII space; one of the ASCII characters
//     ! # $ % & ' ( ) + , - . ; = [ ] ^ _ ` { } ~; or a non-ASCII dash,
//     bracket, quotation mark, currency, modifier or other symbol (Pd, Ps,
//     Pe, Pi, Pf, Sc, Sk, So: emoji included). U+200D (zero-width joiner)
//     may only join two symbols and U+FE0E/U+FE0F may only follow one, as in
//     emoji sequences. Refused: control and format characters, every other
//     space, "@" (which starts an @-import in every client's memory files,
//     so that a key could make a link to it import another file: issue
//     22), "\", : * ? " < > |, the other punctuation and math symbols
//     (where the look-alikes "．", "／", "＼", "∕", "⁄", "․", "。" live),
//     invisible letters and marks (Hangul fillers, U+034F, the other
//     variation selectors), and the So look-alikes of "/", "\" and "."
//     (U+2571, U+2572, U+31D3, U+31D4) and U+FFFC, U+FFFD;
//   - no character's NFKC form holds "/", "\", ".", or : * ? " < > |
//     ("℀" is "a/c", "㏂" is "a.m.");
//   - "%" is never followed by two hex digits, so no percent-encoded form of
//     anything ("50% done.md" passes, "%2e%2e%2f" does not);
//   - no segment is "." or "..", starts with "-" or a space or ends with "."
//     or a space; a folder may start with "." (".trash/old.md"), the file
//     name may not (no dot-files, no SafeWrite temporaries); no segment is
//     ".git" or its short name "git~1", starts with ".teammem" (the agent's
//     own files), in any case, or has the shape of a Windows 8.3 short name
//     (up to six ASCII characters, "~", digits: "PROGRA~1"), which can alias
//     another file;
//   - no segment's stem (the part before its first ".", spaces trimmed,
//     case-folded) is a Windows device name: CON, PRN, AUX, NUL, COM0–COM9,
//     LPT0–LPT9 (also with the superscript digits ¹ ² ³), CONIN$, CONOUT$;
//   - the last segment ends in ".md" or ".txt", in any case.
//
// Hence a valid key is never absolute, holds no "\" and no "." or ".."
// segment, path.Clean leaves it unchanged, and neither its NFKC form nor
// FoldKey's adds a separator or a dot segment (FuzzValidateKey checks this).
// Checks run in the order above per character and segment; the first broken
// rule is the Reason.
func ValidateKey(key string) error {
	if reason := keyProblem(key); reason != "" {
		return &KeyError{Key: key, Reason: reason}
	}
	return nil
}

// keyProblem returns the first rule key breaks, or "".
func keyProblem(key string) string {
	switch {
	case key == "":
		return "empty"
	case len(key) > MaxKeyBytes:
		return fmt.Sprintf("longer than %d bytes", MaxKeyBytes)
	}
	segStart, depth, nfc := 0, 0, true
	var prev uint8 // runeFlags of the previous character; 0 for ASCII
	for i := 0; i < len(key); {
		c := key[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '/':
				depth++
				if reason := segmentProblem(key[segStart:i], depth, false); reason != "" {
					return reason
				}
				segStart = i + 1
			case !asciiAllowed[c]:
				return fmt.Sprintf("character %q not allowed", c)
			case c == '%' && i+2 < len(key) && isHex(key[i+1]) && isHex(key[i+2]):
				return fmt.Sprintf("percent-encoded %q", key[i:i+3])
			}
			prev = 0
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(key[i:])
		if r == utf8.RuneError && size == 1 {
			return "not valid UTF-8"
		}
		flags := runeFlags(r)
		switch {
		case r == zeroWidthJoiner:
			next, _ := utf8.DecodeRuneInString(key[i+size:])
			if prev&(runeSymbol|runeSelector) == 0 || runeFlags(next)&runeSymbol == 0 {
				return fmt.Sprintf("character %U not between two symbols", r)
			}
			flags = runeNFCInert
		case r == textSelector || r == emojiSelector:
			if prev&runeSymbol == 0 {
				return fmt.Sprintf("character %U not after a symbol", r)
			}
			flags = runeNFCInert | runeSelector // a joiner may follow it ("🏳️‍🌈"), a selector not
		case flags&runeAllowed == 0:
			return fmt.Sprintf("character %U not allowed", r)
		}
		nfc = nfc && flags&runeNFCInert != 0
		prev = flags
		i += size
	}
	last := key[segStart:]
	if reason := segmentProblem(last, depth+1, true); reason != "" {
		return reason
	}
	if !hasFoldSuffix(last, ".md") && !hasFoldSuffix(last, ".txt") {
		return "does not end in .md or .txt"
	}
	if !nfc && !norm.NFC.IsNormalString(key) { // nfc: every rune inert, surely NFC
		return "not in Unicode NFC"
	}
	return ""
}

// segmentProblem returns the first rule that segment seg, the depth-th of its
// key and its file name when last, breaks, or "". Characters are checked by
// the caller.
func segmentProblem(seg string, depth int, last bool) string {
	switch {
	case depth > MaxKeyDepth:
		return fmt.Sprintf("more than %d segments", MaxKeyDepth)
	case seg == "":
		return "empty segment"
	case len(seg) > MaxSegmentBytes:
		return fmt.Sprintf("segment longer than %d bytes", MaxSegmentBytes)
	case seg == "." || seg == "..":
		return fmt.Sprintf("segment %q", seg)
	case seg[0] == '-' || seg[0] == ' ' || (last && seg[0] == '.'):
		return fmt.Sprintf("segment starts with %q", seg[0])
	case seg[len(seg)-1] == '.' || seg[len(seg)-1] == ' ':
		return fmt.Sprintf("segment ends with %q", seg[len(seg)-1])
	case strings.EqualFold(seg, ".git") || strings.EqualFold(seg, "git~1"):
		return "segment names the git folder"
	case len(seg) >= len(".teammem") && strings.EqualFold(seg[:len(".teammem")], ".teammem"):
		return "segment starts with .teammem (the agent's own files)"
	case isShortName(seg):
		return "segment has the shape of a Windows short (8.3) name"
	case isDeviceStem(seg):
		return "segment is a Windows device name"
	}
	return ""
}

// isShortName reports whether the stem of seg (the part before its first
// ".") has the shape of a Windows 8.3 short name: one to six ASCII
// characters, "~" and one or more digits, as in "PROGRA~1" or "GIT~1". NTFS
// may give such a name to another file of the folder, which the key would
// then alias.
func isShortName(seg string) bool {
	stem, _, _ := strings.Cut(seg, ".")
	tilde := strings.LastIndexByte(stem, '~')
	if tilde < 1 || tilde > 6 || tilde == len(stem)-1 {
		return false
	}
	for i := 0; i < len(stem); i++ {
		if c := stem[i]; c >= utf8.RuneSelf || (i > tilde && (c < '0' || c > '9')) || (i < tilde && c == '~') {
			return false
		}
	}
	return true
}

// isHex reports whether c is an ASCII hex digit.
func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// hasFoldSuffix reports whether s ends in the ASCII suffix, ignoring case.
func hasFoldSuffix(s, suffix string) bool {
	return len(s) >= len(suffix) && strings.EqualFold(s[len(s)-len(suffix):], suffix)
}

// isDeviceStem reports whether the stem of seg (the part before its first
// ".", spaces trimmed) is a Windows device name, ignoring case.
func isDeviceStem(seg string) bool {
	stem := seg
	if i := strings.IndexByte(seg, '.'); i >= 0 {
		stem = seg[:i]
	}
	stem = strings.Trim(stem, " ")
	switch len(stem) {
	case 3:
		return strings.EqualFold(stem, "CON") || strings.EqualFold(stem, "PRN") ||
			strings.EqualFold(stem, "AUX") || strings.EqualFold(stem, "NUL")
	case 4, 5:
		return (strings.EqualFold(stem[:3], "COM") || strings.EqualFold(stem[:3], "LPT")) &&
			isDeviceDigit(stem[3:])
	case 6, 7:
		return strings.EqualFold(stem, "CONIN$") || strings.EqualFold(stem, "CONOUT$")
	}
	return false
}

// isDeviceDigit reports whether s is one digit 0–9 or a superscript ¹ ² ³.
func isDeviceDigit(s string) bool {
	switch s {
	case "¹", "²", "³":
		return true
	}
	return len(s) == 1 && s[0] >= '0' && s[0] <= '9'
}

// HiddenFile reports whether the file at slash path p, relative to a memory
// folder, is out of sync's sight: a dot-file (".#notes.md", SafeWrite's
// temporary files) or a file below a hidden folder (HiddenFolder).
func HiddenFile(p string) bool {
	slash := strings.LastIndexByte(p, '/')
	return strings.HasPrefix(p[slash+1:], ".") || (slash >= 0 && HiddenFolder(p[:slash]))
}

// HiddenFolder reports whether the folder at slash path p, relative to a
// memory folder, is out of sync's sight: p or a folder above it is a
// dot-folder that no key may name (".git", the agent's own ".teammem…"
// files, "." or ".."). Other dot-folders such as ".trash" hold keys like any
// folder. For a path that may be a file or a folder, HiddenFolder is the
// lesser test.
func HiddenFolder(p string) bool {
	for seg := range strings.SplitSeq(p, "/") {
		if strings.HasPrefix(seg, ".") && segmentProblem(seg, 1, false) != "" {
			return true
		}
	}
	return false
}
