package webui

import "github.com/teammem/teammem/internal/linediff"

// diffContext is how many unchanged lines surround each change shown.
const diffContext = 3

// lineDiff compares two texts line by line and returns the changed regions
// with diffContext lines around each, for the diff page.
func lineDiff(a, b string) []linediff.Block {
	return linediff.Blocks(linediff.Split(a), linediff.Split(b), diffContext)
}
