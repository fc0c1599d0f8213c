package mcptools

import (
	"strings"
	"unicode/utf8"
)

// maxDescription bounds a listed description, in bytes.
const maxDescription = 200

// Describe returns what list_memories shows of a memory: the description
// of its frontmatter (a `description:` line between `---` fences at the
// top), else its first non-blank line without a heading's #s, cut at
// maxDescription bytes on a rune boundary.
func Describe(content string) string {
	content = strings.TrimPrefix(content, "\uFEFF")
	body := content
	if rest, ok := strings.CutPrefix(content, "---\n"); ok {
		fm, after, closed := strings.Cut(rest, "\n---")
		if closed {
			body = after
			if d := frontmatterDescription(fm); d != "" {
				return cut(d)
			}
		}
	}
	for line := range strings.Lines(body) {
		line = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), "#"))
		if line != "" && line != "---" {
			return cut(line)
		}
	}
	return ""
}

// frontmatterDescription reads a one-line `description:` value, unquoted.
func frontmatterDescription(fm string) string {
	for line := range strings.Lines(fm) {
		v, ok := strings.CutPrefix(strings.TrimRight(line, "\r\n"), "description:")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
			v = v[1 : len(v)-1]
		}
		return strings.TrimSpace(v)
	}
	return ""
}

func cut(s string) string {
	if len(s) <= maxDescription {
		return s
	}
	s = s[:maxDescription]
	for !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s + "…"
}
