package memcore

import (
	"strconv"
	"strings"
	"unicode/utf16"
)

// maxSanitizedLength is the longest sanitized path kept whole (§7).
const maxSanitizedLength = 200

// SanitizePath turns an absolute path into one folder name, the way Claude Code
// names its per-project folders under <memoryBase>/projects/: every character
// that is not an ASCII letter or digit becomes '-' ("/home/ana/src/api" →
// "-home-ana-src-api").
//
// Characters are counted in UTF-16 code units, as the original (JavaScript)
// does, so a character outside the Basic Multilingual Plane becomes "--". A
// result over 200 characters keeps its first 200 and appends '-' and a short
// stable hash of the whole input: the Java/JavaScript string hash
// (h = 31*h + unit over the UTF-16 code units, in 32-bit two's complement),
// made non-negative and written in base 36. That is the hash the Node.js build
// of Claude Code uses (djb2Hash in its utils), so both name a long project the
// same way.
func SanitizePath(p string) string {
	units := utf16.Encode([]rune(p))
	var b strings.Builder
	b.Grow(len(units))
	for _, u := range units {
		if isASCIIAlnum(u) {
			b.WriteByte(byte(u))
		} else {
			b.WriteByte('-')
		}
	}
	s := b.String()
	if len(s) <= maxSanitizedLength {
		return s
	}
	return s[:maxSanitizedLength] + "-" + pathHash(units)
}

// isASCIIAlnum reports whether a UTF-16 code unit is an ASCII letter or digit.
func isASCIIAlnum(u uint16) bool {
	return u >= 'a' && u <= 'z' || u >= 'A' && u <= 'Z' || u >= '0' && u <= '9'
}

// pathHash is |javaStringHash(units)| in base 36.
func pathHash(units []uint16) string {
	var h int32
	for _, u := range units {
		h = h*31 + int32(u)
	}
	v := int64(h)
	if v < 0 {
		v = -v
	}
	return strconv.FormatInt(v, 36)
}
