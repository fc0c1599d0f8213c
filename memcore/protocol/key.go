package protocol

// Keys (spec/memcore.md §8, protocol.md §2): the rules are on ValidateKey.

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

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

// asciiAllowed marks the ASCII bytes a key may contain.
var asciiAllowed = func() (t [utf8.RuneSelf]bool) {
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = true, true
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for _, c := range " !#&'()+,-.;=@[]^_{}" {
		t[c] = true
	}
	return t
}()

// ValidateKey reports whether key may name a memory file: nil when it may,
// otherwise a *KeyError wrapping ErrInvalidKey. It is safe for concurrent use
// and does not allocate for a valid key.
//
// A key is the slash-separated relative path of a memory file as stored on the
// server, for example "MEMORY.md" or "decisions/2026-05 db choice.md". The
// server validates every uploaded key with ValidateKey and the agent every key
// it receives, so both ends agree on what may become a file. The rules are an
// allow-list, so that a key is a plain file name on Linux, macOS and Windows
// alike and cannot name anything but a file inside the memory folder:
//
//   - valid UTF-8 already in NFC; 1–512 bytes (MaxKeyBytes); 1–16 segments
//     (MaxKeyDepth) of 1–255 bytes (MaxSegmentBytes) separated by "/", so no
//     empty segment and no leading or trailing "/";
//   - every character is a letter, mark or decimal digit of any script, a
//     space, or one of the ASCII characters ! # & ' ( ) + , - . ; = @ [ ] ^ _ { }.
//     Letters and marks that are default-ignorable (invisible: Hangul
//     fillers, U+034F, variation selectors) are refused too. That excludes
//     control and format characters (NUL, CR, LF, ESC,
//     zero-width and bidi controls, BOM), "\", the Windows-reserved
//     : * ? " < > |, "%" (so no percent-encoded forms), "$", "~", "`" and all
//     non-ASCII punctuation and symbols (so look-alikes such as "．", "／",
//     "∕", "⁄", "＼" and "․" cannot occur);
//   - no segment starts with ".", "-" or a space or ends with "." or a space:
//     no "." or ".." segments, no dot-files such as ".git" or SafeWrite's
//     temporary files, no names Windows would silently alias;
//   - no segment's stem (the part before its first ".", spaces trimmed,
//     case-folded) is a Windows device name: CON, PRN, AUX, NUL, COM0–COM9,
//     LPT0–LPT9 (also with the superscript digits ¹ ² ³), CONIN$, CONOUT$;
//   - the last segment ends in ".md" or ".txt", in any case.
//
// Hence a valid key is never absolute, holds no "\" and no ".." segment, and
// path.Clean leaves it unchanged (FuzzValidateKey checks this). Checks run in
// the order above per character and segment; the first broken rule is the
// Reason.
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
	for i := 0; i < len(key); {
		c := key[i]
		if c == '/' || c < utf8.RuneSelf {
			if c == '/' {
				depth++
				if reason := segmentProblem(key[segStart:i], depth); reason != "" {
					return reason
				}
				segStart = i + 1
			} else if !asciiAllowed[c] {
				return fmt.Sprintf("character %q not allowed", c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(key[i:])
		if r == utf8.RuneError && size == 1 {
			return "not valid UTF-8"
		}
		flags := runeFlags(r)
		if flags&runeAllowed == 0 {
			return fmt.Sprintf("character %U not allowed", r)
		}
		nfc = nfc && flags&runeNFCInert != 0
		i += size
	}
	last := key[segStart:]
	if reason := segmentProblem(last, depth+1); reason != "" {
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
// key, breaks, or "". Characters are checked by the caller.
func segmentProblem(seg string, depth int) string {
	switch {
	case depth > MaxKeyDepth:
		return fmt.Sprintf("more than %d segments", MaxKeyDepth)
	case seg == "":
		return "empty segment"
	case len(seg) > MaxSegmentBytes:
		return fmt.Sprintf("segment longer than %d bytes", MaxSegmentBytes)
	case seg[0] == '.' || seg[0] == '-' || seg[0] == ' ':
		return fmt.Sprintf("segment starts with %q", seg[0])
	case seg[len(seg)-1] == '.' || seg[len(seg)-1] == ' ':
		return fmt.Sprintf("segment ends with %q", seg[len(seg)-1])
	case isDeviceStem(seg):
		return "segment is a Windows device name"
	}
	return ""
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
