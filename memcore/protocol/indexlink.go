package protocol

import (
	"slices"
	"strings"
)

// LinkedKeys returns the keys that the inline links of one line (see
// Links) name from a file in the folder dir ("" or "." for the top of the
// memory folder), in order, each once: the keys an index line links. Web,
// mail and in-page links, links that climb out of the memory folder and
// destinations that are no valid key are left out. The MCP tools
// (write_memory, delete_memory), search, the managed block and the web UI
// all read index lines this way.
func LinkedKeys(dir, line string) []string {
	var out []string
	for _, l := range Links(line) {
		if k, ok := LinkKey(dir, l.Dest); ok && !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

// LinkTargets returns the local targets of the inline links of one line
// (LinkTarget of each), relative to the folder of the file holding it, in
// order, each once: what the index lint checks exists. Unlike LinkedKeys it
// keeps targets that climb out of the folder or are no key.
func LinkTargets(line string) []string {
	var out []string
	for _, l := range Links(line) {
		if rel, ok := LinkTarget(l.Dest); ok && !slices.Contains(out, rel) {
			out = append(out, rel)
		}
	}
	return out
}

// IndexLine is one line of an index and the keys it links.
type IndexLine struct {
	// Text is the line with its line break, as strings.Lines yields it.
	Text string
	// Keys are the LinkedKeys of the line without its line break; none for
	// a line of fenced code.
	Keys []string
}

// IndexLines returns the lines of an index, the content of a MEMORY.md in
// the folder dir, each with the keys it links. Links inside fenced code
// are no index entries.
func IndexLines(dir, content string) []IndexLine {
	var out []IndexLine
	var f Fence
	for l := range strings.Lines(content) {
		line := IndexLine{Text: l}
		if t := strings.TrimRight(l, "\r\n"); !f.Code(t) {
			line.Keys = LinkedKeys(dir, t)
		}
		out = append(out, line)
	}
	return out
}

// Fence follows the fenced code blocks of a Markdown text line by line, as
// CommonMark reads them: a fence is three or more backticks or tildes after
// at most three spaces (backticks with no backtick in the info string
// after them), and the block runs to a line of at least as many of the
// same character and nothing else but spaces, or to the end of the text.
// The zero value is outside any block.
type Fence struct {
	char byte // the fence's character; 0 outside a block
	n    int  // the length of the opening fence
}

// Code reports whether line (without its line break) is fenced code: a
// fence that opens or closes a block, or a line inside one.
func (f *Fence) Code(line string) bool {
	indent := skipSpaces(line, 0)
	if indent > 3 || strings.Contains(line[:indent], "\t") {
		return f.char != 0
	}
	t := line[indent:]
	c := byte(0)
	if t != "" && (t[0] == '`' || t[0] == '~') {
		c = t[0]
	}
	n := 0
	for n < len(t) && c != 0 && t[n] == c {
		n++
	}
	if f.char != 0 {
		if c == f.char && n >= f.n && strings.TrimRight(t[n:], " \t") == "" {
			f.char, f.n = 0, 0
		}
		return true
	}
	if n < 3 || c == '`' && strings.Contains(t[n:], "`") {
		return false
	}
	f.char, f.n = c, n
	return true
}
