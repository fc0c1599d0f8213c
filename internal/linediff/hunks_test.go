package linediff

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestHunks(t *testing.T) {
	tests := []struct {
		name string
		a, b string
		want []Hunk
	}{
		{"equal", "a\nb\n", "a\nb\n", nil},
		{"replace middle", "a\nb\nc\n", "a\nx\nc\n", []Hunk{{1, 2, []string{"x\n"}}}},
		{"insert", "a\nc\n", "a\nb\nc\n", []Hunk{{1, 1, []string{"b\n"}}}},
		{"delete", "a\nb\nc\n", "a\nc\n", []Hunk{{1, 2, []string{}}}},
		{"two hunks", "a\nb\nc\nd\n", "x\nb\nc\ny\n", []Hunk{{0, 1, []string{"x\n"}}, {3, 4, []string{"y\n"}}}},
		{"all new", "", "a\n", []Hunk{{0, 0, []string{"a\n"}}}},
		{"moved line", "a\nb\nc\n", "b\nc\na\n", []Hunk{{0, 1, []string{}}, {3, 3, []string{"a\n"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Hunks(Split(tt.a), Split(tt.b))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Hunks (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDiffMinimal checks that the middle search finds a longest common
// subsequence, not just some diff.
func TestDiffMinimal(t *testing.T) {
	a := Split("x\na\nb\nc\na\nb\nb\na\ny\n")
	b := Split("x\nc\nb\na\nb\na\nc\ny\n")
	ia, ib := intern(a, b)
	if got := len(matchLines(ia, ib)); got != 2+4 { // LCS of abcabba/cbabac is 4
		t.Errorf("matched %d lines, want 6", got)
	}
}

func TestDiffLargeFallsBackToOneBlock(t *testing.T) {
	var a, b strings.Builder
	for i := range 3000 {
		a.WriteString(strings.Repeat("a", i%7+1) + "\n")
		b.WriteString(strings.Repeat("b", i%5+1) + "\n")
	}
	hs := Hunks(Split(a.String()), Split(b.String()))
	if got := Apply(Split(a.String()), hs); got != b.String() {
		t.Fatalf("applying the diff did not give b")
	}
}

// TestDiffAgainstDynamicProgramming compares the Myers search with a plain
// LCS table on many small line sequences over a tiny alphabet, where ties
// and repeated lines are frequent.
func TestDiffAgainstDynamicProgramming(t *testing.T) {
	seed := uint32(1)
	rnd := func(n int) int { seed = seed*1664525 + 1013904223; return int(seed>>16) % n }
	gen := func() []string {
		lines := make([]string, rnd(12))
		for i := range lines {
			lines[i] = string(rune('a'+rnd(3))) + "\n"
		}
		return lines
	}
	for range 2000 {
		a, b := gen(), gen()
		ia, ib := intern(a, b)
		ms := matchLines(ia, ib)
		for i, m := range ms {
			if a[m[0]] != b[m[1]] || (i > 0 && (m[0] <= ms[i-1][0] || m[1] <= ms[i-1][1])) {
				t.Fatalf("bad matches %v for %q / %q", ms, a, b)
			}
		}
		if want := lcsLength(a, b); len(ms) != want {
			t.Fatalf("matched %d, LCS is %d for %q / %q", len(ms), want, a, b)
		}
		if got := Apply(a, Hunks(a, b)); got != strings.Join(b, "") {
			t.Fatalf("diff of %q to %q applies as %q", a, b, got)
		}
	}
}

func lcsLength(a, b []string) int {
	dp := make([][]int, len(a)+1)
	for i := range dp {
		dp[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				dp[i][j] = dp[i+1][j+1] + 1
			} else {
				dp[i][j] = max(dp[i+1][j], dp[i][j+1])
			}
		}
	}
	return dp[0][0]
}

// FuzzHunks checks, for any two texts, that applying Hunks(a, b) to a gives
// b, that the hunks are sorted and apart, and that every Block line carries
// the line its numbers name.
func FuzzHunks(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nB\nc\n")
	f.Add("", "x")
	f.Add("x\ny", "")
	f.Add("a\na\na\n", "b\na\na\na\nb\n")
	f.Add("1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n", "0\n1\n2\n3\n4\n6\n7\n8\n9\n10\n11")
	f.Add("a\r\nb\r\n", "a\nb\n")
	f.Fuzz(func(t *testing.T, as, bs string) {
		a, b := Split(as), Split(bs)
		if got := strings.Join(a, ""); got != as {
			t.Fatalf("Split(%q) joins as %q", as, got)
		}
		hs := Hunks(a, b)
		if got := Apply(a, hs); got != bs {
			t.Fatalf("Hunks(%q, %q) = %v apply as %q", as, bs, hs, got)
		}
		for i, h := range hs {
			if h.Start > h.End || h.End > len(a) || (i > 0 && h.Start <= hs[i-1].End) {
				t.Fatalf("hunks %v of %q / %q are not sorted and apart", hs, as, bs)
			}
		}
		for _, blk := range Blocks(a, b, 2) {
			for _, l := range blk.Lines {
				if (l.Op != "+" && a[l.Old-1] != l.Text) || (l.Op != "-" && b[l.New-1] != l.Text) {
					t.Fatalf("block line %+v of %q / %q is not the line it numbers", l, as, bs)
				}
			}
		}
	})
}

func TestBlocks(t *testing.T) {
	a := Split("1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n")
	b := Split("1\nTWO\n3\n4\n5\n6\n7\n8\n10\n11\n")
	type short struct {
		Op       string
		Old, New int
	}
	var got [][]short
	var heads [][4]int
	for _, blk := range Blocks(a, b, 1) {
		var s []short
		for _, l := range blk.Lines {
			s = append(s, short{l.Op, l.Old, l.New})
		}
		got = append(got, s)
		heads = append(heads, [4]int{blk.OldStart, blk.OldLen, blk.NewStart, blk.NewLen})
	}
	want := [][]short{
		{{" ", 1, 1}, {"-", 2, 0}, {"+", 0, 2}, {" ", 3, 3}},
		{{" ", 8, 8}, {"-", 9, 0}, {" ", 10, 9}, {"+", 0, 10}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Blocks lines (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([][4]int{{0, 3, 0, 3}, {7, 3, 7, 3}}, heads); diff != "" {
		t.Errorf("Blocks ranges (-want +got):\n%s", diff)
	}
	// The changes are 6 unchanged lines apart: one block from context 3.
	if blks := Blocks(a, b, 2); len(blks) != 2 {
		t.Errorf("context 2: %d blocks, want 2", len(blks))
	}
	if blks := Blocks(a, b, 3); len(blks) != 1 || len(blks[0].Lines) != 12 {
		t.Errorf("context 3: blocks %v, want one of all 12 lines", blks)
	}
	if blks := Blocks(a, a, 3); blks != nil {
		t.Errorf("equal lines give blocks %v", blks)
	}
}
