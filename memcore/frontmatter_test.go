package memcore

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseFrontmatter(t *testing.T) {
	tests := []struct {
		name, in  string
		wantGlobs []string
		wantBody  string
		wantErr   bool
	}{
		{"none", "# Title\n", nil, "# Title\n", false},
		{"yaml list", "---\npaths:\n  - src/**\n  - lib/*.go\n---\nbody\n", []string{"src/**", "lib/*.go"}, "body\n", false},
		{"comma string", "---\npaths: src/**, test/**\n---\nbody", []string{"src/**", "test/**"}, "body", false},
		{"flow list", "---\npaths: [a/*.md, b]\n---\n", []string{"a/*.md", "b"}, "", false},
		{"braces expanded", "---\npaths: src/*.{ts,tsx}, docs/**\n---\n", []string{"src/*.ts", "src/*.tsx", "docs/**"}, "", false},
		{"leading star quoted", "---\npaths: **/*.go\n---\nx", []string{"**/*.go"}, "x", false},
		{"leading star list", "---\npaths:\n  - *.ts\n  - {a,b}/x\n---\n", []string{"*.ts", "a/x", "b/x"}, "", false},
		{"match all is unconditional", "---\npaths: \"**\"\n---\nx", nil, "x", false},
		{"other keys", "---\ndescription: hi\n---\nx", nil, "x", false},
		{"empty block", "---\n---\nx", nil, "x", false},
		{"unclosed is content", "---\npaths: a\nbody", nil, "---\npaths: a\nbody", false},
		{"not at top", "\n---\npaths: a\n---\n", nil, "\n---\npaths: a\n---\n", false},
		{"invalid yaml stripped", "---\n: : [\n---\nbody", nil, "body", true},
		{"crlf", "---\r\npaths: a/**\r\n---\r\nbody", []string{"a/**"}, "body", false},
		{"scalar not map", "---\njust text\n---\nb", nil, "b", true},
		{"description with colon", "---\ndescription: API rules: apply to handlers\npaths: src/api/**\n---\nb", []string{"src/api/**"}, "b", false},
		{"description with brackets", "---\ndescription: see [ADR 7]\npaths: docs/**\n---\nb", []string{"docs/**"}, "b", false},
		{"paths kept from broken block", "---\npaths: src/legacy/**\nowners: \"unclosed\n---\nb", []string{"src/legacy/**"}, "b", true},
		{"paths list kept from broken block", "---\nowners: \"unclosed\npaths:\n  - *.go\n  - lib/**\nx: 1\n---\nb", []string{"*.go", "lib/**"}, "b", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fm, body, err := ParseFrontmatter(tt.in)
			if (err != nil) != tt.wantErr || (err != nil && !errors.Is(err, ErrFrontmatter)) {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if body != tt.wantBody {
				t.Errorf("body = %q, want %q", body, tt.wantBody)
			}
			if diff := cmp.Diff(tt.wantGlobs, FrontmatterGlobs(fm)); diff != "" {
				t.Errorf("globs (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseFrontmatterQuotesOnRetry(t *testing.T) {
	tests := []struct {
		name, in string
		want     map[string]any
	}{
		{"topic decision", "---\nname: db\ndescription: Decision: we use Postgres\ntype: project\n---\n",
			map[string]any{"name": "db", "description": "Decision: we use Postgres", "type": "project"}},
		{"quotes and backslashes kept", "---\ndescription: say \"hi\": C:\\dir\nname: x\n---\n",
			map[string]any{"description": `say "hi": C:\dir`, "name": "x"}},
		{"quoted value left alone", "---\ndescription: 'a: b'\nnote: x: y\n---\n",
			map[string]any{"description": "a: b", "note": "x: y"}},
		{"flow list left alone", "---\npaths: [a/**, b]\nnote: x: y\n---\n",
			map[string]any{"paths": []any{"a/**", "b"}, "note": "x: y"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fm, _, err := ParseFrontmatter(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, fm); diff != "" {
				t.Errorf("frontmatter (-want +got):\n%s", diff)
			}
		})
	}
}

func TestExpandBracesBounded(t *testing.T) {
	p := ""
	for range 20 {
		p += "{a,b}"
	}
	if got := len(expandBraces(p)); got != maxBraceExpansion {
		t.Errorf("expansion of 2^20 alternatives = %d globs, want cap %d", got, maxBraceExpansion)
	}
	if diff := cmp.Diff([]string{"x{y}z"}, expandBraces("x{y}z")); diff != "" {
		t.Errorf("single alternative (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"a/b/x", "a/c/x", "d/x"}, expandBraces("{a/{b,c},d}/x")); diff != "" {
		t.Errorf("nested (-want +got):\n%s", diff)
	}
}
