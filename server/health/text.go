package health

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/teammem/teammem/memcore/protocol"
)

// The text measures: a topic is read as its frontmatter lines and its body
// lines, each lowercased with its runs of white space made one space;
// empty lines are dropped. Two topics equal so are duplicates whatever
// the order of their frontmatter lines.

// normalized is a topic read for comparison.
type normalized struct {
	front []string // frontmatter lines, sorted
	body  []string // body lines, in order
}

// normalize reads content as normalized.
func normalize(content string) normalized {
	content = strings.TrimPrefix(content, "\uFEFF")
	var n normalized
	rest := content
	if after, ok := cutFrontmatter(content); ok {
		front := content[:len(content)-len(after)]
		for l := range strings.Lines(front) {
			if t := normLine(l); t != "" && t != "---" {
				n.front = append(n.front, t)
			}
		}
		slices.Sort(n.front)
		rest = after
	}
	for l := range strings.Lines(rest) {
		if t := normLine(l); t != "" {
			n.body = append(n.body, t)
		}
	}
	return n
}

// cutFrontmatter returns the text after a frontmatter block opening the
// content ("---" lines around it), and whether there was one.
func cutFrontmatter(content string) (string, bool) {
	rest, ok := strings.CutPrefix(content, "---\n")
	if !ok {
		if rest, ok = strings.CutPrefix(content, "---\r\n"); !ok {
			return content, false
		}
	}
	off := 0
	for l := range strings.Lines(rest) {
		off += len(l)
		if strings.TrimRight(l, "\r\n") == "---" {
			return rest[off:], true
		}
	}
	return content, false
}

// normLine is one line lowercased, its white space runs made one space,
// trimmed.
func normLine(l string) string {
	buf := make([]byte, 0, len(l))
	space := false
	for i := 0; i < len(l); i++ {
		c := l[i]
		switch {
		case c >= utf8.RuneSelf:
			return strings.Join(strings.Fields(strings.ToLower(l)), " ")
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f':
			space = len(buf) > 0
			continue
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		}
		if space {
			buf = append(buf, ' ')
			space = false
		}
		buf = append(buf, c)
	}
	return string(buf)
}

// key is the normalized text as one string: equal keys are duplicates.
func (n normalized) key() string {
	return strings.Join(n.front, "\n") + "\n---\n" + strings.Join(n.body, "\n")
}

// wordHashes returns the set of words of lines (runs of letters, digits
// and underscores), each hashed, sorted and each once.
func wordHashes(lines []string) []uint64 {
	n := 0
	for _, l := range lines {
		n += len(l)
	}
	out := make([]uint64, 0, n/5+1)
	for _, l := range lines {
		start := -1
		for i, r := range l {
			word := unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_'
			switch {
			case word && start < 0:
				start = i
			case !word && start >= 0:
				out = append(out, hashString(l[start:i]))
				start = -1
			}
		}
		if start >= 0 {
			out = append(out, hashString(l[start:]))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// hashString is FNV-1a, 64 bits, mixed: stable from run to run, so a
// report is the same every time it is made.
func hashString(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return mix(h)
}

// mix is splitmix64's finaliser.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// jaccard is |a∩b| / |a∪b| of two sorted sets.
func jaccard(a, b []uint64) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 1
	}
	i, j, both := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			both++
			i++
			j++
		}
	}
	return float64(both) / float64(len(a)+len(b)-both)
}

// hiddenRune is a control, line or paragraph separator or bidirectional
// control: what a line written for others may not hold.
func hiddenRune(r rune) bool {
	return unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || protocol.IsBidiControl(r)
}

// lastRune is the last rune of s and its size.
func lastRune(s string) (rune, int) { return utf8.DecodeLastRuneInString(s) }
