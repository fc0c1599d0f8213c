package memcore

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestExtractIncludes(t *testing.T) {
	tests := []struct {
		name, md string
		want     []string
	}{
		{"forms", "@a.md\n@./b.md @../c.md\n@~/d.md and @/abs/e.md\n", []string{"a.md", "./b.md", "../c.md", "~/d.md", "/abs/e.md"}},
		{"escaped space", `see @docs/my\ file.md please`, []string{"docs/my file.md"}},
		{"fragment dropped", "@docs/a.md#section", []string{"docs/a.md"}},
		{"email is not include", "mail ana@example.com or a@b.com", nil},
		{"code span ignored", "use `@x.md` not @y.md", []string{"y.md"}},
		{"fenced code ignored", "```\n@x.md\n```\n@y.md\n", []string{"y.md"}},
		{"indented code ignored", "para\n\n    @x.md\n\n@y.md\n", []string{"y.md"}},
		{"heading and list", "# Title @h.md\n- item @l.md\n> quote @q.md\n", []string{"h.md", "l.md", "q.md"}},
		{"emphasis", "**@bold.md** _@em.md_", []string{"bold.md", "em.md"}},
		{"underscores kept", "@docs/my_long_file_name.md", []string{"docs/my_long_file_name.md"}},
		{"invalid tokens", "@ @@x @#y @/ @*z", nil},
		{"duplicates once", "@a.md @a.md @./a.md", []string{"a.md", "./a.md"}},
		{"soft break is line start", "text\n@next.md", []string{"next.md"}},
		{"text between inline html", "x <span>@in.md</span> @yes.md", []string{"in.md", "yes.md"}},
		{"residue after comment", "<!-- note --> @after.md\n", []string{"after.md"}},
		{"inside comment ignored", "<!-- @hidden.md -->\n", nil},
		{"unicode start", "@文档.md", []string{"文档.md"}},
		{"link text", "[@l.md](http://x)", []string{"l.md"}},
		{"backslash ends token", `@a\b.md`, []string{"a"}},
		// What Claude Code reads that a scan of text nodes alone missed
		// (issue 22): a list item's raw text, destinations and code
		// spans included; the token after an escape; U+FEFF as a space.
		{"list item destination", "- [Runbook](</t/a @.env#.md>) — runbook\n", []string{".env"}},
		{"list item padded code span", "- note `` @.env#` ``\n", []string{".env"}},
		{"list item code span", "* see `x @secrets.yml` here", []string{"secrets.yml`"}},
		{"list in a quote", "> - x `` @q.md ``", []string{"q.md"}},
		{"paragraph destination not read", "[R](</t/a @.env#.md>) and `` @c.md ``", nil},
		{"after an escaped backslash", `x \\@esc.md and \@not.md`, []string{"esc.md"}},
		{"BOM is a space", "x\ufeff@bom.md", []string{"bom.md"}},
		{"escaped at sign in a list", `- x \@no.md`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, ExtractIncludes(tt.md)); diff != "" {
				t.Errorf("ExtractIncludes(%q) (-want +got):\n%s", tt.md, diff)
			}
		})
	}
}

func TestStripHTMLComments(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"block comment", "a\n\n<!-- hidden -->\nb\n", "a\n\nb\n"},
		{"multi-line", "<!--\nline1\nline2\n-->\ntext\n", "text\n"},
		{"residue kept", "<!-- x --> keep\n", "keep\n"},
		{"two comments one line", "<!-- a --> mid <!-- b -->\n", "mid \n"},
		{"fenced kept", "```\n<!-- code -->\n```\n", "```\n<!-- code -->\n```\n"},
		{"indented kept", "para\n\n    <!-- code -->\n", "para\n\n    <!-- code -->\n"},
		{"code span kept", "`<!-- x -->`\n", "`<!-- x -->`\n"},
		{"inline kept", "text <!-- inline --> more\n", "text <!-- inline --> more\n"},
		{"unclosed left alone", "a\n\n<!-- never closed\nb\n", "a\n\n<!-- never closed\nb\n"},
		{"no comment", "plain @x.md\n", "plain @x.md\n"},
		{"in blockquote", "> <!-- q -->\n> text\n", "> text\n"},
		{"in list item", "- a\n\n  <!-- c -->\n- b\n", "- a\n\n- b\n"},
		{"crlf", "<!-- c -->\r\nnext\r\n", "next\r\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, StripHTMLComments(tt.in)); diff != "" {
				t.Errorf("StripHTMLComments(%q) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}
