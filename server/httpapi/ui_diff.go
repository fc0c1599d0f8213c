package httpapi

import (
	"strings"
	"time"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// diffContext is how many unchanged lines surround each change shown.
const diffContext = 3

// diffLine is one line of a rendered diff.
type diffLine struct {
	Op       string // " ", "-" or "+"
	Old, New int    // 1-based line numbers; 0 where the line has none
	Text     string
}

// diffHunk is a run of changes with their context.
type diffHunk struct{ Lines []diffLine }

// lineDiff compares two texts line by line (diff-match-patch in line mode)
// and returns the changed regions with diffContext lines around each.
func lineDiff(a, b string) []diffHunk {
	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = 2 * time.Second
	ra, rb, lines := dmp.DiffLinesToRunes(a, b)
	diffs := dmp.DiffCharsToLines(dmp.DiffMainRunes(ra, rb, false), lines)
	var all []diffLine
	oldN, newN := 0, 0
	for _, d := range diffs {
		for _, text := range splitKeepingLines(d.Text) {
			switch d.Type {
			case diffmatchpatch.DiffEqual:
				oldN, newN = oldN+1, newN+1
				all = append(all, diffLine{Op: " ", Old: oldN, New: newN, Text: text})
			case diffmatchpatch.DiffDelete:
				oldN++
				all = append(all, diffLine{Op: "-", Old: oldN, Text: text})
			case diffmatchpatch.DiffInsert:
				newN++
				all = append(all, diffLine{Op: "+", New: newN, Text: text})
			}
		}
	}
	return hunks(all)
}

// hunks keeps the changed lines and up to diffContext unchanged lines on
// either side, splitting where more unchanged lines lie between changes.
func hunks(all []diffLine) []diffHunk {
	keep := make([]bool, len(all))
	for i, l := range all {
		if l.Op == " " {
			continue
		}
		for j := max(0, i-diffContext); j <= min(len(all)-1, i+diffContext); j++ {
			keep[j] = true
		}
	}
	var out []diffHunk
	for i := 0; i < len(all); i++ {
		if !keep[i] {
			continue
		}
		h := diffHunk{}
		for ; i < len(all) && keep[i]; i++ {
			h.Lines = append(h.Lines, all[i])
		}
		out = append(out, h)
	}
	return out
}

// splitKeepingLines splits text into its lines without their newlines; a
// final newline does not make an empty last line.
func splitKeepingLines(text string) []string {
	if text == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(text, "\n"), "\n")
}
