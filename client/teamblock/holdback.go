package teamblock

import (
	"path"
	"strings"
)

// HoldBack splits index, the content of the MEMORY.md in the folder dir of
// the team folder ("" or "." for its top), into the text to share and the
// lines held back: every line with an inline link to a file of the team
// folder for which held reports true (called with the file's key). The
// lines kept are unchanged, byte for byte; each held line is returned
// without its line break. A link inside a code span counts too: a line
// is rather held back than left pointing at a file nobody else has.
func HoldBack(index, dir string, held func(key string) bool) (kept string, heldLines []string) {
	if dir == "." {
		dir = ""
	}
	var b strings.Builder
	for _, line := range strings.SplitAfter(index, "\n") {
		if linksHeld(line, dir, held) {
			heldLines = append(heldLines, strings.TrimRight(line, "\r\n"))
			continue
		}
		b.WriteString(line)
	}
	return b.String(), heldLines
}

// linksHeld reports whether line links a file for which held is true.
func linksHeld(line, dir string, held func(key string) bool) bool {
	for i := strings.IndexByte(line, '['); i >= 0 && i < len(line); {
		l, ok := parseLink(line, i)
		if !ok {
			next := strings.IndexByte(line[i+1:], '[')
			if next < 0 {
				return false
			}
			i += 1 + next
			continue
		}
		if p, inFolder := linkPath(l.target); inFolder {
			if dir != "" {
				p = path.Join(dir, p)
			}
			if key, valid := keyOf(p); valid && held(key) {
				return true
			}
		}
		if linksHeld(l.text, dir, held) { // a link in the link's text
			return true
		}
		i = l.end
	}
	return false
}
