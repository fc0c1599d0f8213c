package protocol

import "testing"

func TestSplitFrontmatter(t *testing.T) {
	for _, tt := range []struct {
		in   string
		fm   Frontmatter
		body string
		ok   bool
	}{
		{"---\nname: ship deploys\ndescription: how we ship deploys\ntype: project\n---\n# Deploys\n", Frontmatter{"ship deploys", "how we ship deploys", "project"}, "# Deploys\n", true},
		{"\uFEFF---\r\nname: \"quoted: yes\"\r\ndescription: 'x'\r\n---\r\nbody", Frontmatter{"quoted: yes", "x", ""}, "body", true},
		{"---\nname: never closed\n", Frontmatter{}, "---\nname: never closed\n", false},
		{"# no frontmatter\n---\nname: x\n---\n", Frontmatter{}, "# no frontmatter\n---\nname: x\n---\n", false},
		{"---\n---\n", Frontmatter{}, "", true},
		{"", Frontmatter{}, "", false},
	} {
		fm, body, ok := SplitFrontmatter(tt.in)
		if fm != tt.fm || body != tt.body || ok != tt.ok {
			t.Errorf("SplitFrontmatter(%q) = %+v, %q, %v; want %+v, %q, %v", tt.in, fm, body, ok, tt.fm, tt.body, tt.ok)
		}
	}
}
