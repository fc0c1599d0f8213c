package teamblock

import (
	"slices"
	"strings"

	"github.com/teammem/teammem/memcore/protocol"
)

// HoldBack splits index, the content of the MEMORY.md in the folder dir of
// the team folder ("" or "." for its top), into the text to share and the
// lines held back: every line with an inline link to a file of the team
// folder for which held reports true (called with the file's key). The
// lines kept are unchanged, byte for byte; each held line is returned
// without its line break. A link inside a code span or fenced code counts
// too: a line is rather held back than left pointing at a file nobody else
// has.
func HoldBack(index, dir string, held func(key string) bool) (kept string, heldLines []string) {
	var b strings.Builder
	for _, line := range strings.SplitAfter(index, "\n") {
		if linksHeld(strings.TrimRight(line, "\r\n"), dir, held) {
			heldLines = append(heldLines, strings.TrimRight(line, "\r\n"))
			continue
		}
		b.WriteString(line)
	}
	return b.String(), heldLines
}

// linksHeld reports whether line links a file for which held is true.
// The links are those every surface reads (protocol.LinkedKeys), and those
// of the line read again with its backticks as spaces: a link in a code
// span counts too.
func linksHeld(line, dir string, held func(key string) bool) bool {
	for _, l := range []string{line, strings.ReplaceAll(line, "`", " ")} {
		if slices.ContainsFunc(protocol.LinkedKeys(dir, l), held) {
			return true
		}
	}
	return false
}
