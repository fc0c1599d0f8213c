package memcore

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/teammem/teammem/memcore/protocol"
)

// The MEMORY.md index budget (spec §5).
const (
	MaxIndexLines     = protocol.MaxIndexLines
	MaxIndexBytes     = protocol.MaxIndexBytes
	MaxIndexLineChars = 150
)

// TruncateIndex keeps a MEMORY.md index inside its budget: the first 200
// lines, then, if still over 25,000 bytes, up to the last newline before
// byte 25,000 (or byte 25,000 backed off to a rune boundary when there is no
// newline). When anything was cut it appends a blank line and a warning line
// starting "> WARNING:" that names path, the limit(s) exceeded and the real
// size. Content within budget is returned unchanged.
func TruncateIndex(path, content string) (out string, truncated bool) {
	out, _, truncated = truncateIndex(path, content)
	return out, truncated
}

// TruncateIndexLines is TruncateIndex for text whose lines must stay
// whole (an index rendered into another file, where half a link is no
// link): over the byte limit it cuts at the last line break before it, and
// keeps nothing of a first line longer than the limit (the warning then
// stands alone).
func TruncateIndexLines(path, content string) (out string, truncated bool) {
	out, _, truncated = truncateIndexTo(path, content, true)
	return out, truncated
}

// truncateIndex is TruncateIndex that also returns the kept text without
// the warning.
// Trailing blank lines and whitespace do not count against the budget, and
// the kept text never ends in a line break (CR of CRLF included).
func truncateIndex(path, content string) (out, kept string, truncated bool) {
	return truncateIndexTo(path, content, false)
}

// truncateIndexTo is truncateIndex; with wholeLines a line is kept whole
// or not at all.
func truncateIndexTo(path, content string, wholeLines bool) (out, kept string, truncated bool) {
	overLines, overBytes := overBudget(content)
	if !overLines && !overBytes {
		return content, content, false
	}
	kept = content
	if overLines {
		kept = firstLines(kept, MaxIndexLines)
	}
	kept = trimLineBreak(cutBytes(trimLineBreak(kept), MaxIndexBytes, wholeLines))
	warning := indexWarning(path, countLines(content), len(content), overLines, overBytes)
	if kept == "" && wholeLines {
		return warning, kept, true
	}
	return kept + "\n\n" + warning, kept, true
}

// overBudget reports whether content, without trailing whitespace, has more
// lines or bytes than an index may.
func overBudget(content string) (overLines, overBytes bool) {
	body := strings.TrimRight(content, " \t\r\n")
	return countLines(body) > MaxIndexLines, len(body) > MaxIndexBytes
}

// trimLineBreak drops one final LF, CRLF or CR.
func trimLineBreak(s string) string {
	return strings.TrimSuffix(strings.TrimSuffix(s, "\n"), "\r")
}

// countLines counts lines; a final newline does not start another line.
func countLines(s string) int {
	if s == "" {
		return 0
	}
	n := strings.Count(s, "\n")
	if !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

// firstLines returns the first n lines of s.
func firstLines(s string, n int) string {
	off := 0
	for i := 0; i < n; i++ {
		j := strings.IndexByte(s[off:], '\n')
		if j < 0 {
			return s
		}
		off += j + 1
	}
	return s[:off]
}

// cutBytes shortens s to at most limit bytes at the last newline before
// the limit, else (unless wholeLines, which keeps nothing then) at the
// limit backed off to a rune start.
func cutBytes(s string, limit int, wholeLines bool) string {
	if len(s) <= limit {
		return s
	}
	if i := strings.LastIndexByte(s[:limit+1], '\n'); i > 0 {
		return s[:i]
	}
	if wholeLines {
		return ""
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}

// indexWarning is the warning line appended to a truncated index.
func indexWarning(path string, lines, size int, overLines, overBytes bool) string {
	var over string
	switch {
	case overLines && overBytes:
		over = fmt.Sprintf("both the line limit (%d) and the byte limit (%d)", MaxIndexLines, MaxIndexBytes)
	case overLines:
		over = fmt.Sprintf("the line limit (%d)", MaxIndexLines)
	default:
		over = fmt.Sprintf("the byte limit (%d)", MaxIndexBytes)
	}
	return fmt.Sprintf("> WARNING: %s is over %s: it has %d lines and %d bytes, so only part of it was loaded. "+
		"Keep index entries to one short line each and move detail into topic files.", path, over, lines, size)
}
