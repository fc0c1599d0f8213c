package linediff

import "strings"

// Line is one line of a Block.
type Line struct {
	Op       string // " " unchanged, "-" removed, "+" added
	Old, New int    // 1-based line numbers in a and b; 0 where the line has none
	Text     string // the line as in its text, with its newline if it has one
}

// Trimmed returns the line without its final "\n".
func (l Line) Trimmed() string { return strings.TrimSuffix(l.Text, "\n") }

// Block is a run of changes with up to the context number of unchanged
// lines around them: a @@ block of a unified diff.
type Block struct {
	OldStart, OldLen int // the block's lines of a: [OldStart, OldStart+OldLen), 0-based
	NewStart, NewLen int // the same for b
	Lines            []Line
}

// Blocks returns the changes that turn a into b, each with up to context
// unchanged lines on either side; changes fewer than 2*context+1 unchanged
// lines apart share a block. Equal inputs give none.
func Blocks(a, b []string, context int) []Block {
	hunks := Hunks(a, b)
	var out []Block
	delta := 0 // lines of b minus lines of a before the next block
	for len(hunks) > 0 {
		n := 1
		for n < len(hunks) && hunks[n].Start-hunks[n-1].End <= 2*context {
			n++
		}
		blk := block(a, hunks[:n], delta, context)
		out = append(out, blk)
		delta += blk.NewLen - blk.OldLen
		hunks = hunks[n:]
	}
	return out
}

// block builds the Block of hunks with their context; delta is where b's
// line numbers stand against a's at its start.
func block(a []string, hunks []Hunk, delta, context int) Block {
	start := max(0, hunks[0].Start-context)
	end := min(len(a), hunks[len(hunks)-1].End+context)
	blk := Block{OldStart: start, NewStart: start + delta}
	oldN, newN := blk.OldStart, blk.NewStart
	same := func(lines []string) {
		for _, l := range lines {
			oldN, newN = oldN+1, newN+1
			blk.Lines = append(blk.Lines, Line{Op: " ", Old: oldN, New: newN, Text: l})
		}
	}
	i := start
	for _, h := range hunks {
		same(a[i:h.Start])
		for _, l := range a[h.Start:h.End] {
			oldN++
			blk.Lines = append(blk.Lines, Line{Op: "-", Old: oldN, Text: l})
		}
		for _, l := range h.Lines {
			newN++
			blk.Lines = append(blk.Lines, Line{Op: "+", New: newN, Text: l})
		}
		i = h.End
	}
	same(a[i:end])
	blk.OldLen, blk.NewLen = oldN-blk.OldStart, newN-blk.NewStart
	return blk
}
