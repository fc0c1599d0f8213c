package teamblock

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestHoldBack(t *testing.T) {
	held := func(k string) bool { return k == "secret.md" || k == "sub/key notes.md" }
	tests := []struct {
		name, index, dir, kept string
		held                   []string
	}{
		{"nothing held", "- [a](a.md) one\n- [b](b.md)\n", "", "- [a](a.md) one\n- [b](b.md)\n", nil},
		{"a line linking a held file", "- [a](a.md)\n- [s](secret.md) keys\n- [b](b.md)", "",
			"- [a](a.md)\n- [b](b.md)", []string{"- [s](secret.md) keys"}},
		{"the second link of a line", "- [a](a.md), see [s](./secret.md#top)\r\n", "", "", []string{"- [a](a.md), see [s](./secret.md#top)"}},
		{"angle brackets and percent escapes", "- [k](<sub/key notes.md>)\n- [k2](sub/key%20notes.md)\n- ok\n", "",
			"- ok\n", []string{"- [k](<sub/key notes.md>)", "- [k2](sub/key%20notes.md)"}},
		{"relative to a subfolder's index", "- [k](key%20notes.md)\n- [s](secret.md)\n", "sub",
			"- [s](secret.md)\n", []string{"- [k](key%20notes.md)"}},
		{"climbing out of a subfolder", "- [s](../secret.md)\n", "sub", "", []string{"- [s](../secret.md)"}},
		{"a URL or an anchor is not a file", "- [s](https://x/secret.md)\n- [t](#secret.md)\n", "",
			"- [s](https://x/secret.md)\n- [t](#secret.md)\n", nil},
		{"a mention without a link stays", "- secret.md is not shared\n", "", "- secret.md is not shared\n", nil},
		{"a link in a link's text", "- [[s](secret.md)](a.md)\n", "", "", []string{"- [[s](secret.md)](a.md)"}},
		{"unbalanced brackets", "- [[[ (secret.md) ]\n", "", "- [[[ (secret.md) ]\n", nil},
		{"a link in a code span", "- `[s](secret.md)` ok\n- [`s]`](secret.md)\n", "", "", []string{"- `[s](secret.md)` ok", "- [`s]`](secret.md)"}},
		{"a link in fenced code", "```\n[s](secret.md)\n```\n", "", "```\n```\n", []string{"[s](secret.md)"}},
		{"the three link shapes", "- [k](<sub/key notes.md>)\n- [A [s]](secret.md)\n- [k](sub/key%20notes.md \"t\")\n", "", "",
			[]string{"- [k](<sub/key notes.md>)", "- [A [s]](secret.md)", "- [k](sub/key%20notes.md \"t\")"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kept, lines := HoldBack(tt.index, tt.dir, held)
			if kept != tt.kept || !cmp.Equal(lines, tt.held) {
				t.Errorf("HoldBack(%q, %q) = %q, %q; want %q, %q", tt.index, tt.dir, kept, lines, tt.kept, tt.held)
			}
		})
	}
}
