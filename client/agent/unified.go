package agent

import (
	"fmt"
	"strings"
)

// unifiedContext is the number of unchanged lines shown around each change.
const unifiedContext = 3

// UnifiedDiff returns the unified diff (as `diff -u` prints it) that turns
// a into b, under the file names nameA and nameB; "" when they are equal.
// A last line without a newline is followed by "\ No newline at end of
// file".
func UnifiedDiff(nameA, nameB, a, b string) string {
	if a == b {
		return ""
	}
	la := splitLines(a)
	hunks := diffHunks(la, splitLines(b))
	var sb strings.Builder
	fmt.Fprintf(&sb, "--- %s\n+++ %s\n", nameA, nameB)
	delta := 0 // lines of b minus lines of a before the next block
	for len(hunks) > 0 {
		n := 1 // the block joins hunks whose gap fits in twice the context
		for n < len(hunks) && hunks[n].start-hunks[n-1].end <= 2*unifiedContext {
			n++
		}
		delta = writeBlock(&sb, la, hunks[:n], delta)
		hunks = hunks[n:]
	}
	return sb.String()
}

// writeBlock writes one @@ block of hunks with their context and returns
// delta moved past them.
func writeBlock(sb *strings.Builder, a []string, hunks []hunk, delta int) int {
	start := max(0, hunks[0].start-unifiedContext)
	end := min(len(a), hunks[len(hunks)-1].end+unifiedContext)
	grow := 0
	for _, h := range hunks {
		grow += len(h.lines) - (h.end - h.start)
	}
	fmt.Fprintf(sb, "@@ -%s +%s @@\n", lineRange(start, end-start), lineRange(start+delta, end-start+grow))
	i := start
	for _, h := range hunks {
		writePrefixed(sb, ' ', a[i:h.start])
		writePrefixed(sb, '-', a[h.start:h.end])
		writePrefixed(sb, '+', h.lines)
		i = h.end
	}
	writePrefixed(sb, ' ', a[i:end])
	return delta + grow
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

func writePrefixed(sb *strings.Builder, prefix byte, lines []string) {
	for _, l := range lines {
		sb.WriteByte(prefix)
		sb.WriteString(l)
		if !strings.HasSuffix(l, "\n") {
			sb.WriteString("\n\\ No newline at end of file\n")
		}
	}
}
