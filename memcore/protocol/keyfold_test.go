package protocol

import "testing"

func TestFoldKey(t *testing.T) {
	tests := []struct {
		name, a, b string
		same       bool
	}{
		{"ASCII case", "Notes/README.md", "notes/readme.MD", true},
		{"lower ASCII unchanged", "notes/x.md", "notes/x.md", true},
		{"sharp s", "Straße.md", "STRASSE.md", true},
		{"sigma", "ΟΔΟΣ.md", "οδος.md", true},
		{"Cyrillic", "Решение.md", "решение.md", true},
		{"different names", "a.md", "b.md", false},
		{"accent matters", "café.md", "cafe.md", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fa, fb := FoldKey(tc.a), FoldKey(tc.b)
			if (fa == fb) != tc.same {
				t.Fatalf("FoldKey(%q) = %q, FoldKey(%q) = %q; same = %v, want %v", tc.a, fa, tc.b, fb, fa == fb, tc.same)
			}
			if FoldKey(fa) != fa {
				t.Fatalf("FoldKey is not idempotent on %q", fa)
			}
		})
	}
}
