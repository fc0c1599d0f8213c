package mcptools

import (
	"strings"
	"unicode/utf8"

	"github.com/teammem/teammem/memcore/protocol"
)

// maxDescription bounds a listed description, in bytes.
const maxDescription = 200

// Describe returns what list_memories shows of a memory: the description
// of its frontmatter (a `description:` line between `---` fences at the
// top), else its first non-blank line without a heading's #s, cut at
// maxDescription bytes on a rune boundary.
func Describe(content string) string {
	fm, body, _ := protocol.SplitFrontmatter(strings.TrimPrefix(content, "\uFEFF"))
	if fm.Description != "" {
		return cut(fm.Description)
	}
	for line := range strings.Lines(body) {
		line = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), "#"))
		if line != "" && line != "---" {
			return cut(line)
		}
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
