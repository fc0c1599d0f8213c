package memcore

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestTruncateIndex(t *testing.T) {
	lines := func(n int, line string) string { return strings.Repeat(line+"\n", n) }
	tests := []struct {
		name      string
		in        string
		truncated bool
		keptLines int
		over      string // fragment of the warning naming the limit(s)
	}{
		{"within budget", lines(200, "- [a](a.md) — x"), false, 200, ""},
		{"exactly 200 lines no final newline", strings.TrimSuffix(lines(200, "x"), "\n"), false, 200, ""},
		{"250 lines", lines(250, "- [a](a.md) — x"), true, 200, "over the line limit (200)"},
		{"30000 bytes", lines(100, strings.Repeat("b", 299)), true, 83, "over the byte limit (25000)"},
		{"both", lines(300, strings.Repeat("c", 199)), true, 125, "both the line limit (200) and the byte limit (25000)"},
		{"lines over, bytes of kept part under", lines(201, strings.Repeat("d", 124)), true, 200, "both"},
		{"25000 bytes and a final newline", lines(99, strings.Repeat("e", 249)) + strings.Repeat("e", 250) + "\n", false, 100, ""},
		{"200 lines and trailing blank lines", lines(200, "x") + "\n \n\t\n", false, 200, ""},
		{"200 CRLF lines and a trailing blank line", lines(200, "x\r") + "\r\n", false, 200, ""},
		{"250 CRLF lines", lines(250, "- [a](a.md) — x\r"), true, 200, "over the line limit (200)"},
		{"30000 bytes of CRLF lines", lines(100, strings.Repeat("b", 298)+"\r"), true, 83, "over the byte limit (25000)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, truncated := TruncateIndex("/m/MEMORY.md", tt.in)
			if truncated != tt.truncated {
				t.Fatalf("truncated = %v, want %v", truncated, tt.truncated)
			}
			if !truncated {
				if out != tt.in {
					t.Errorf("content within budget changed")
				}
				return
			}
			kept, warning, ok := strings.Cut(out, "\n\n> WARNING: ")
			if !ok || strings.Contains(warning, "\n") {
				t.Fatalf("want kept text, a blank line and one warning line; got %q", out[max(0, len(out)-300):])
			}
			if got := countLines(kept); got != tt.keptLines {
				t.Errorf("kept %d lines, want %d", got, tt.keptLines)
			}
			if strings.HasSuffix(kept, "\r") || strings.HasSuffix(kept, "\n") {
				t.Errorf("kept part ends in a line break: %q", kept[max(0, len(kept)-20):])
			}
			if len(kept) > MaxIndexBytes || !strings.HasPrefix(tt.in, kept) {
				t.Errorf("kept part (%d bytes) is not a prefix within the byte budget", len(kept))
			}
			for _, want := range []string{"/m/MEMORY.md", tt.over, "one short line", "topic files"} {
				if !strings.Contains(warning, want) {
					t.Errorf("warning %q lacks %q", warning, want)
				}
			}
		})
	}
}

func TestTruncateIndexLines(t *testing.T) {
	long := strings.Repeat("y", MaxIndexBytes+10)
	tests := []struct{ name, in, kept string }{
		{"a first line over the limit", long + "\nshort", ""},
		{"a later line over the limit", "first\nsecond\n" + long, "first\nsecond"},
		{"lines within the limit", "a\nb", "a\nb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, truncated := TruncateIndexLines("M.md", tt.in)
			if tt.kept == tt.in {
				if truncated || out != tt.in {
					t.Errorf("within budget: %q, %v", out, truncated)
				}
				return
			}
			want := tt.kept + "\n\n> WARNING: M.md is over the byte limit"
			if tt.kept == "" {
				want = "> WARNING: M.md is over the byte limit"
			}
			if !truncated || !strings.HasPrefix(out, want) {
				t.Errorf("TruncateIndexLines = %.80q…, %v; want it to start %q", out, truncated, want)
			}
		})
	}
}

func TestTruncateIndexNeverSplitsRunes(t *testing.T) {
	in := strings.Repeat("決", 10_000) // 30,000 bytes on one line
	out, truncated := TruncateIndex("M.md", in)
	kept, _, _ := strings.Cut(out, "\n\n> WARNING:")
	if !truncated || !utf8.ValidString(kept) || len(kept) > MaxIndexBytes || len(kept) < MaxIndexBytes-3 {
		t.Errorf("truncated=%v valid=%v len=%d", truncated, utf8.ValidString(kept), len(kept))
	}
}

func TestLintIndex(t *testing.T) {
	long := "- [Long](long.md) — " + strings.Repeat("x", 140)
	content := "# Index\n" +
		"- [Build](build.md) — ok\n" +
		"- [Gone](gone.md#part) — dead\n" +
		"- [Web](https://example.com) and [anchor](#top) and [mail](mailto:a@b.c)\n" +
		"- [Spaced](my%20notes.md) — escaped\n" +
		long + "\n" +
		"```\n[in fence](nope.md)\n```\n"
	exists := func(rel string) bool { return rel == "build.md" || rel == "my notes.md" || rel == "long.md" }
	got := LintIndex("MEMORY.md", content, exists)
	want := []LintProblem{
		{Path: "MEMORY.md", Line: 3, Rule: RuleDeadLink, Message: "link to missing file gone.md"},
		{Path: "MEMORY.md", Line: 6, Rule: RuleLongLine, Message: "line has 160 characters; keep index entries under 150"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("LintIndex (-want +got):\n%s", diff)
	}
	over := LintIndex("MEMORY.md", strings.Repeat("- x\n", 230), nil)
	if len(over) != 1 || over[0].Rule != RuleOverBudget || over[0].Line != 201 {
		t.Errorf("over budget: %+v, want one over-budget problem at line 201", over)
	}
}

func TestLintIndexBudgetMatchesLoader(t *testing.T) {
	entries := func(n int) string { return strings.Repeat("- [a](a.md) — x\n", n) }
	comment := "<!--\n" + strings.Repeat("maintainers: keep this index short\n", 30) + "-->\n"
	tests := []struct {
		name     string
		content  string
		wantLine int // 0: no over-budget problem
	}{
		{"frontmatter does not count", "---\nname: index\ndescription: all topics\n---\n" + entries(200), 0},
		{"block comments do not count", comment + entries(195), 0},
		{"BOM does not count", "\uFEFF" + strings.Repeat(strings.Repeat("y", 124)+"\n", 200), 0},
		{"over, after frontmatter", "---\nname: index\n---\n" + entries(230), 3 + 201},
		{"over, after a comment", comment + entries(230), 32 + 201},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, body, _ := ParseFrontmatter(strings.TrimPrefix(tt.content, "\uFEFF"))
			_, loaderCut := TruncateIndex("MEMORY.md", StripHTMLComments(body)) // what Load does
			var got int
			for _, p := range LintIndex("MEMORY.md", tt.content, nil) {
				if p.Rule == RuleOverBudget {
					got = p.Line
				}
			}
			if got != tt.wantLine || (got != 0) != loaderCut {
				t.Errorf("over-budget line = %d, want %d (loader cuts: %v)", got, tt.wantLine, loaderCut)
			}
		})
	}
}
