package memcore

import (
	"strings"
	"testing"
)

func TestSanitizePath(t *testing.T) {
	long := "/home/ana/" + strings.Repeat("very-long-folder-name/", 12) + "api"
	// Expected values were produced by the original JavaScript
	// (name.replace(/[^a-zA-Z0-9]/g, '-') plus Math.abs(djb2Hash).toString(36)).
	tests := []struct {
		name, in, want string
	}{
		{"plain", "/home/ana/src/api", "-home-ana-src-api"},
		{"windows", `C:\Users\ana\api`, "C--Users-ana-api"},
		{"non-ASCII and astral", "/home/ana/prøjekt/😀/x", "-home-ana-pr-jekt----x"},
		{"exactly 200", "/" + strings.Repeat("a", 199), "-" + strings.Repeat("a", 199)},
		{"long", long, "-home-ana-very-long-folder-name-very-long-folder-name-very-long-folder-name-very-long-folder-name-very-long-folder-name-very-long-folder-name-very-long-folder-name-very-long-folder-name-very-long-fold-ottasq"},
		{"long non-ASCII", "/srv/" + strings.Repeat("ü", 210), "-srv-" + strings.Repeat("-", 195) + "-eqnvk7"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := SanitizePath(tt.in); got != tt.want {
				t.Errorf("SanitizePath(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestSanitizePathLongDistinct(t *testing.T) {
	a := "/" + strings.Repeat("x", 300) + "/a"
	b := "/" + strings.Repeat("x", 300) + "/b"
	if SanitizePath(a) == SanitizePath(b) {
		t.Fatalf("two long paths that differ after 200 characters share a name: %q", SanitizePath(a))
	}
}
