package linediff

import (
	"strings"
	"testing"
)

func TestMerge3(t *testing.T) {
	const base = "a\nb\nc\nd\ne\n"
	tests := []struct {
		name, base, local, server string
		want                      string
		ok                        bool
	}{
		{"unchanged both", base, base, base, base, true},
		{"only local changed", base, "a\nB\nc\nd\ne\n", base, "a\nB\nc\nd\ne\n", true},
		{"only server changed", base, base, "a\nb\nc\nD\ne\n", "a\nb\nc\nD\ne\n", true},
		{"disjoint edits", base, "A\nb\nc\nd\ne\n", "a\nb\nc\nd\nE\n", "A\nb\nc\nd\nE\n", true},
		{"adjacent lines edited", base, "a\nB\nc\nd\ne\n", "a\nb\nC\nd\ne\n", "a\nB\nC\nd\ne\n", true},
		{"same line edited differently", base, "a\nX\nc\nd\ne\n", "a\nY\nc\nd\ne\n", "", false},
		{"same line edited identically", base, "a\nX\nc\nd\ne\n", "a\nX\nc\nd\nE\n", "a\nX\nc\nd\nE\n", true},
		{"identical whole results", base, "z\n", "z\n", "z\n", true},
		{"insertions at different places", base, "a\nnew1\nb\nc\nd\ne\n", "a\nb\nc\nd\nnew2\ne\n",
			"a\nnew1\nb\nc\nd\nnew2\ne\n", true},
		{"insertions at the same place", base, "a\nx\nb\nc\nd\ne\n", "a\ny\nb\nc\nd\ne\n", "", false},
		{"append on both sides", base, base + "x\n", base + "y\n", "", false},
		{"append on one, prepend on other", base, base + "x\n", "y\n" + base, "y\n" + base + "x\n", true},
		{"deletion and distant edit", base, "a\nc\nd\ne\n", "a\nb\nc\nd\nE\n", "a\nc\nd\nE\n", true},
		{"deletion overlapping an edit", base, "a\ne\n", "a\nb\nC\nd\ne\n", "", false},
		{"both delete the same line", base, "a\nc\nd\ne\n", "a\nc\nd\ne\n", "a\nc\nd\ne\n", true},
		{"insert right after a changed line", base, "a\nB\nc\nd\ne\n", "a\nb\nins\nc\nd\ne\n", "a\nB\nins\nc\nd\ne\n", true},
		{"insert right before a changed line", base, "a\nB\nc\nd\ne\n", "a\nins\nb\nc\nd\ne\n", "", false},
		{"no trailing newline", "a\nb", "A\nb", "a\nb\nc", "A\nb\nc", true},
		{"empty base, both add", "", "x\n", "y\n", "", false},
		{"empty base, one adds", "", "x\n", "", "x\n", true},
		{"crlf lines", "a\r\nb\r\nc\r\n", "A\r\nb\r\nc\r\n", "a\r\nb\r\nC\r\n", "A\r\nb\r\nC\r\n", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Merge3(tt.base, tt.local, tt.server)
			if ok != tt.ok || got != tt.want {
				t.Errorf("Merge3 = %q, %v; want %q, %v", got, ok, tt.want, tt.ok)
			}
			// The merge is symmetric in local and server.
			got2, ok2 := Merge3(tt.base, tt.server, tt.local)
			if ok2 != ok || got2 != got {
				t.Errorf("swapped Merge3 = %q, %v; want %q, %v", got2, ok2, got, ok)
			}
		})
	}
}

// FuzzMerge3 checks that merging with an unchanged side returns the other
// side exactly, that a diff applied to its base reproduces the target, and
// that merging is symmetric.
func FuzzMerge3(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nB\nc\n", "a\nb\nC\n")
	f.Add("", "x", "y\n")
	f.Add("a\na\na\n", "a\n", "b\na\na\na\nb\n")
	f.Fuzz(func(t *testing.T, base, local, server string) {
		if got, ok := Merge3(base, base, server); !ok || got != server {
			t.Fatalf("Merge3(base, base, s) = %q, %v", got, ok)
		}
		if got, ok := Merge3(base, local, base); !ok || got != local {
			t.Fatalf("Merge3(base, l, base) = %q, %v", got, ok)
		}
		for _, target := range []string{local, server} {
			bl := Split(base)
			if got := Apply(bl, Hunks(bl, Split(target))); got != target {
				t.Fatalf("diff of %q to %q applies as %q", base, target, got)
			}
		}
		m1, ok1 := Merge3(base, local, server)
		m2, ok2 := Merge3(base, server, local)
		if ok1 != ok2 || m1 != m2 {
			t.Fatalf("asymmetric merge: %q,%v vs %q,%v", m1, ok1, m2, ok2)
		}
	})
}

func BenchmarkMerge3(b *testing.B) {
	var base strings.Builder
	for i := range 2000 {
		base.WriteString("line " + strings.Repeat("x", i%40) + "\n")
	}
	bs := base.String()
	local := "top\n" + bs
	server := bs + "bottom\n"
	for b.Loop() {
		if _, ok := Merge3(bs, local, server); !ok {
			b.Fatal("merge failed")
		}
	}
}
