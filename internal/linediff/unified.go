package linediff

import (
	"fmt"
	"strings"
)

// UnifiedContext is the number of unchanged lines Unified shows around each
// change, as diff -u does.
const UnifiedContext = 3

// Unified returns the unified diff (as `diff -u` prints it) that turns a
// into b, under the file names nameA and nameB; "" when they are equal. A
// last line without a newline is followed by "\ No newline at end of file".
func Unified(nameA, nameB, a, b string) string {
	if a == b {
		return ""
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "--- %s\n+++ %s\n", nameA, nameB)
	for _, blk := range Blocks(Split(a), Split(b), UnifiedContext) {
		fmt.Fprintf(&sb, "@@ -%s +%s @@\n", lineRange(blk.OldStart, blk.OldLen), lineRange(blk.NewStart, blk.NewLen))
		for _, l := range blk.Lines {
			sb.WriteString(l.Op)
			sb.WriteString(l.Text)
			if !strings.HasSuffix(l.Text, "\n") {
				sb.WriteString("\n\\ No newline at end of file\n")
			}
		}
	}
	return sb.String()
}

// lineRange formats a range of a @@ line: 1-based start and length, the
// length left out when 1, the start the line before when the range is
// empty.
func lineRange(start, n int) string {
	switch n {
	case 0:
		return fmt.Sprintf("%d,0", start)
	case 1:
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}
