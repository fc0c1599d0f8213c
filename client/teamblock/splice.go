package teamblock

import (
	"strings"

	"github.com/teammem/teammem/memcore"
)

// spliceBlock returns content with its block replaced by block ("" removes
// it), or with block inserted at the top when it has none.
func spliceBlock(content, block string) (string, error) {
	return spliceBlockAt(content, block, false)
}

// spliceBlockAt is spliceBlock; with atEnd a new block goes at the end of
// content instead, when content is empty or ends in a line feed (else at
// the top, so that taking the block out again gives content back byte for
// byte).
func spliceBlockAt(content, block string, atEnd bool) (string, error) {
	begin, end, err := findBlock(content)
	if err != nil {
		return "", err
	}
	if begin >= 0 {
		return content[:begin] + block + content[end:], nil
	}
	if atEnd && (content == "" || strings.HasSuffix(content, "\n")) {
		return content + block, nil
	}
	at := topOffset(content)
	return content[:at] + block + content[at:], nil
}

// findBlock returns the offsets of the block's Begin line and just after
// its End line (and line break), or -1, -1 when there is no marker line.
// Marker lines are matched whole (a final CR aside).
func findBlock(content string) (begin, end int, err error) {
	return findMarked(content, Begin, End)
}

// findMarked is findBlock for the marker lines beginLine and endLine.
func findMarked(content, beginLine, endLine string) (begin, end int, err error) {
	begin, end = -1, -1
	var begins, ends int
	for off := 0; off < len(content); {
		line, next := content[off:], len(content)
		if i := strings.IndexByte(line, '\n'); i >= 0 {
			line, next = line[:i], off+i+1
		}
		at := off
		if off == 0 && strings.HasPrefix(line, "\uFEFF") {
			line, at = line[len("\uFEFF"):], len("\uFEFF")
		}
		switch strings.TrimSuffix(line, "\r") {
		case beginLine:
			begins++
			begin = at
		case endLine:
			ends++
			end = next
		}
		off = next
	}
	switch {
	case begins == 0 && ends == 0:
		return -1, -1, nil
	case begins != 1 || ends != 1 || end <= begin:
		return -1, -1, ErrDamaged
	}
	return begin, end, nil
}

// topOffset is where a new block goes: after a byte order mark and a
// frontmatter block, which must stay first (found by the fuzz target
// FuzzTargetRestores: "---\n---" without a final line feed).
func topOffset(content string) int {
	at := 0
	if strings.HasPrefix(content, "\uFEFF") {
		at = len("\uFEFF")
	}
	if _, body, _ := memcore.ParseFrontmatter(content[at:]); len(body) < len(content[at:]) &&
		strings.HasSuffix(content[:len(content)-len(body)], "\n") {
		// After the frontmatter, unless it ends the file without a line
		// feed: a marker there would not start a line, so the block could
		// not be found again; the top keeps the file restorable.
		at = len(content) - len(body)
	}
	return at
}
