package searchtext

import (
	"strings"
	"unicode/utf8"

	"github.com/teammem/teammem/memcore/protocol"
)

// layout is where the parts of an entry's content lie.
type layout struct {
	fm protocol.Frontmatter // read as every surface reads it (protocol.SplitFrontmatter)
	// other holds the values of the frontmatter's other lines (type, refs,
	// a line without a key), one a line: the body's index holds their words.
	other string
	// body is where the text after the frontmatter starts, the index's
	// body; shown is where a snippet may start (see layoutOf).
	body, shown int
}

// layoutOf reads content's layout. A snippet shows no frontmatter: past a
// closed block (protocol.SplitFrontmatter), and past an unclosed one's
// first line "---" and the `key: value` lines after it, which protocol
// reads as text (so the index keeps their words in the body, where they
// are). A byte order mark is never shown either.
func layoutOf(content string) layout {
	fm, body, ok := protocol.SplitFrontmatter(content)
	if ok {
		at := len(content) - len(body)
		return layout{fm: fm, other: otherLines(content[:at]), body: at, shown: at}
	}
	return layout{shown: unclosedEnd(content)}
}

// otherLines returns the values of the lines of the frontmatter block
// other than the markers, name and description: "key: value" gives value,
// a line without a key itself.
func otherLines(block string) string {
	var b strings.Builder
	for line := range strings.Lines(strings.TrimPrefix(block, "\uFEFF")) {
		line = strings.TrimRight(line, "\r\n")
		if strings.TrimSpace(line) == "---" {
			continue
		}
		if k, v, found := strings.Cut(line, ":"); found {
			switch strings.TrimSpace(k) {
			case "name", "description":
				continue
			}
			line = v
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	return b.String()
}

// unclosedEnd returns where the text of content starts after a byte order
// mark and, when content opens a frontmatter block that never closes, its
// first line and the `key: value` lines after it (see fieldLine).
func unclosedEnd(content string) int {
	at := len(content) - len(strings.TrimPrefix(content, "\uFEFF"))
	first, rest, ok := strings.Cut(content[at:], "\n")
	if !ok || strings.TrimSuffix(first, "\r") != "---" {
		return at
	}
	at += len(first) + 1
	for rest != "" {
		line, after, _ := strings.Cut(rest, "\n")
		if !fieldLine(line) {
			break
		}
		at += len(rest) - len(after)
		rest = after
	}
	return at
}

// fieldLine reports whether line is a frontmatter field: a key of letters,
// digits, '_' or '-', then ':'.
func fieldLine(line string) bool {
	k, _, found := strings.Cut(line, ":")
	k = strings.TrimSpace(k)
	if !found || k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		if c := k[i]; c >= utf8.RuneSelf || !asciiWord[c] && c != '_' && c != '-' {
			return false
		}
	}
	return true
}
