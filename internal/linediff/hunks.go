// Package linediff is the project's one line diff: Split cuts a text into
// lines, Hunks finds the edits that turn one list of lines into another
// (Myers' O(ND) search, bounded by maxDiffCost), Apply replays them, Blocks
// groups them with unchanged lines around for display (the web UI's diff
// page) and Unified prints them as `diff -u` does (teammem-agent diff). The
// agent's three-way and index merges build on Hunks. It imports nothing of
// the project.
package linediff

import (
	"slices"
	"strings"
)

// maxDiffCost bounds the edit distance Myers' search explores. Beyond it the
// differing middle is reported as one replaced block: still a correct diff,
// only coarser, so a merge may report a conflict it could have avoided but
// never produces a wrong result. It keeps memory under ~16 MB.
const maxDiffCost = 2000

// Hunk replaces base lines [Start, End) with Lines.
type Hunk struct {
	Start, End int
	Lines      []string
}

// Equal reports whether two hunks make the same edit.
func (h Hunk) Equal(o Hunk) bool {
	return h.Start == o.Start && h.End == o.End && slices.Equal(h.Lines, o.Lines)
}

// Split splits s after every "\n"; the last line may lack one. Joining the
// result gives s back exactly; "" gives no lines.
func Split(s string) []string {
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// Hunks returns the edits that turn a into b, in increasing order of Start,
// separated by at least one unchanged line. Within maxDiffCost edits it is
// a shortest edit script; beyond, the differing middle is one hunk.
func Hunks(a, b []string) []Hunk {
	// The lines both start and end with are matched as they are, before
	// any is interned: an edit of a few lines of a long text costs a
	// comparison of its lines, not a map of them.
	pre, suf := commonEnds(a, b)
	ia, ib := intern(a[pre:len(a)-suf], b[pre:len(b)-suf])
	var hunks []Hunk
	pa, pb := pre-1, pre-1
	for _, m := range append(matchLines(ia, ib), [2]int{len(a) - suf - pre, len(b) - suf - pre}) {
		m = [2]int{m[0] + pre, m[1] + pre}
		if m[0] > pa+1 || m[1] > pb+1 {
			hunks = append(hunks, Hunk{Start: pa + 1, End: m[0], Lines: b[pb+1 : m[1]]})
		}
		pa, pb = m[0], m[1]
	}
	return hunks
}

// commonEnds returns how many lines a and b start with alike, and how many
// of the rest they end with alike.
func commonEnds(a, b []string) (pre, suf int) {
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	return pre, suf
}

// Apply applies sorted, non-overlapping hunks to base and returns the
// joined result.
func Apply(base []string, hunks []Hunk) string {
	var sb strings.Builder
	pos := 0
	for _, h := range hunks {
		writeLines(&sb, base[pos:h.Start])
		writeLines(&sb, h.Lines)
		pos = h.End
	}
	writeLines(&sb, base[pos:])
	return sb.String()
}

func writeLines(sb *strings.Builder, lines []string) {
	for _, l := range lines {
		sb.WriteString(l)
	}
}

// intern maps equal lines of a and b to equal integers.
func intern(a, b []string) ([]int, []int) {
	ids := map[string]int{}
	conv := func(lines []string) []int {
		out := make([]int, len(lines))
		for i, l := range lines {
			id, ok := ids[l]
			if !ok {
				id = len(ids)
				ids[l] = id
			}
			out[i] = id
		}
		return out
	}
	return conv(a), conv(b)
}

// matchLines returns the pairs (i, j) with a[i] == b[j] of a longest common
// subsequence of a and b (within maxDiffCost), in increasing order. The
// common prefix and suffix are matched directly; Myers' O(ND) search handles
// the middle.
func matchLines(a, b []int) [][2]int {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var out [][2]int
	for i := range pre {
		out = append(out, [2]int{i, i})
	}
	for _, m := range myers(a[pre:len(a)-suf], b[pre:len(b)-suf]) {
		out = append(out, [2]int{m[0] + pre, m[1] + pre})
	}
	for i := suf; i > 0; i-- {
		out = append(out, [2]int{len(a) - i, len(b) - i})
	}
	return out
}

// myers runs Myers' greedy forward search for the shortest edit script of a
// into b and returns the matched pairs along it, or nil when the script
// costs more than maxDiffCost.
func myers(a, b []int) [][2]int {
	n, m := len(a), len(b)
	if n == 0 || m == 0 {
		return nil
	}
	off := n + m
	v := make([]int32, 2*off+2)
	var frontiers [][]int32 // frontiers[d][k+d] = furthest x on diagonal k after d edits
	for d := 0; d <= n+m && d <= maxDiffCost; d++ {
		for k := -d; k <= d; k += 2 {
			x := nextX(v, off, k, d)
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x, y = x+1, y+1
			}
			v[off+k] = int32(x)
			if x >= n && y >= m {
				frontiers = append(frontiers, slices.Clone(v[off-d:off+d+1]))
				return backtrack(frontiers, n, m)
			}
		}
		frontiers = append(frontiers, slices.Clone(v[off-d:off+d+1]))
	}
	return nil
}

// nextX returns where diagonal k starts at cost d: one step down from
// diagonal k+1 (an insertion) or one step right from k-1 (a deletion),
// whichever reaches further.
func nextX(v []int32, off, k, d int) int {
	if d == 0 {
		return 0
	}
	if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
		return int(v[off+k+1])
	}
	return int(v[off+k-1]) + 1
}

// backtrack walks the frontiers from (n, m) back to (0, 0), collecting the
// diagonal (matching) moves in increasing order.
func backtrack(frontiers [][]int32, n, m int) [][2]int {
	var out [][2]int
	x, y := n, m
	for d := len(frontiers) - 1; d > 0; d-- {
		prev := frontiers[d-1]
		at := func(k int) int { return int(prev[k+d-1]) }
		k := x - y
		prevK := k - 1
		if k == -d || (k != d && at(k-1) < at(k+1)) {
			prevK = k + 1
		}
		px := at(prevK)
		py := px - prevK
		sx := px // where the diagonal run after the edit starts
		if prevK == k-1 {
			sx = px + 1
		}
		for x > sx {
			x, y = x-1, y-1
			out = append(out, [2]int{x, y})
		}
		x, y = px, py
	}
	for x > 0 {
		x, y = x-1, y-1
		out = append(out, [2]int{x, y})
	}
	slices.Reverse(out)
	return out
}
