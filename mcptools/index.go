package mcptools

import (
	"slices"
	"strings"

	"github.com/teammem/teammem/memcore/protocol"
)

// checkIndexLine refuses an index line that is not one line linking key
// (as protocol.LinkedKeys reads links, like every surface).
func checkIndexLine(line, key string) error {
	example := "- [Title](" + protocol.LinkDest(key) + ") — one-line hook"
	if strings.ContainsAny(line, "\r\n") {
		return refusef("index_line must be one line, such as %q", example)
	}
	if !slices.Contains(protocol.LinkedKeys("", line), key) {
		return refusef("index_line must link the memory it indexes, such as %q", example)
	}
	return nil
}

// SetIndexLine returns index with line in place of the first line that
// links key (outside fenced code), and without the other lines that link
// it; when none does, line is appended.
func SetIndexLine(index, key, line string) string {
	var b strings.Builder
	placed := false
	eachIndexLine(index, key, func(l string, links bool) {
		switch {
		case !links:
			b.WriteString(l)
		case !placed:
			b.WriteString(line + "\n")
			placed = true
		}
	})
	if !placed {
		if s := b.String(); s != "" && !strings.HasSuffix(s, "\n") {
			b.WriteString("\n")
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

// RemoveIndexLines returns index without the lines that link key (outside
// fenced code).
func RemoveIndexLines(index, key string) string {
	var b strings.Builder
	eachIndexLine(index, key, func(l string, links bool) {
		if !links {
			b.WriteString(l)
		}
	})
	return b.String()
}

// eachIndexLine calls fn with each line of index (with its line break) and
// whether it links key outside fenced code.
func eachIndexLine(index, key string, fn func(line string, links bool)) {
	for _, l := range protocol.IndexLines("", index) {
		fn(l.Text, slices.Contains(l.Keys, key))
	}
}
