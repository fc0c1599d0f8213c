package memcore

import (
	"strings"
	"testing"
)

func FuzzParseFrontmatter(f *testing.F) {
	for _, s := range []string{
		"---\npaths: src/**\n---\nbody", "---\npaths:\n  - *.ts\n  - '{a,b}/x'\n---\n", "---\n: [\n---\nx",
		"---\r\npaths: a\r\n---\r\n", "---\n---", "no frontmatter", "---\npaths: [1, {a: b}]\n---\n",
		"---\npaths: {a,b}{c,d}{e,f}\n---\n", "---\n&a [*a, *a]\n---\n",
		"---\ndescription: API rules: apply to handlers\npaths: src/api/**\n---\n", "---\npaths:\n  - \"x\nk: v: w\n---\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, content string) {
		fm, body, err := ParseFrontmatter(content)
		if !strings.HasSuffix(content, body) {
			t.Fatalf("body %q is not a suffix of %q", body, content)
		}
		if (fm != nil || err != nil) && !strings.HasPrefix(content, "---") {
			t.Fatalf("frontmatter found in %q without a leading ---", content)
		}
		if fm == nil && err == nil && body != content {
			t.Fatalf("no frontmatter but body changed: %q", body)
		}
		globs := FrontmatterGlobs(fm)
		if len(globs) > 64*maxBraceExpansion {
			t.Fatalf("%d globs", len(globs))
		}
		for _, g := range globs {
			if strings.TrimSpace(g) == "" {
				t.Fatalf("empty glob from %q", content)
			}
		}
	})
}
