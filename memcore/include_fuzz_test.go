package memcore

import (
	"strings"
	"testing"
)

func FuzzExtractIncludes(f *testing.F) {
	for _, s := range []string{
		"@a.md @./b.md @../c.md @~/d.md @/e.md", `@my\ file.md#frag`, "a@b.com", "```\n@x.md\n```",
		"<!-- c --> @r.md", "<!-- open\n@x.md", "**@b.md**", "> - @q.md", "`@s.md`", "@\\", "@ \\ @",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, md string) {
		got := ExtractIncludes(md)
		seen := map[string]bool{}
		for _, p := range got {
			if p == "" || strings.ContainsAny(p, "#\n\r\t") || seen[p] {
				t.Fatalf("bad include %q in %q (all %q)", p, md, got)
			}
			seen[p] = true
			if !strings.Contains(md, "@"+strings.ReplaceAll(p, " ", `\ `)) {
				t.Fatalf("include %q does not occur as a token in %q", p, md)
			}
		}
		out := StripHTMLComments(md)
		if len(out) > len(md) || (!strings.Contains(md, "<!--") && out != md) {
			t.Fatalf("StripHTMLComments(%q) = %q", md, out)
		}
	})
}
