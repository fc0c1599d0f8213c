package teamblock

import (
	"strings"
	"testing"
)

const testTeam = "/home/ana/.claude/projects/-home-ana-src-api/memory/team"

// testRenderer has the topic files a.md, db choice.md, sub/x.md and
// secret.md (refused) in its team folder.
func testRenderer() lineRenderer {
	files := map[string]bool{"a.md": true, "db choice.md": true, "sub/x.md": true, "secret.md": true, "Q&A (old).md": true}
	return lineRenderer{teamDir: testTeam,
		exists:  func(k string) bool { return files[k] },
		refused: func(k string) bool { return k == "secret.md" }}
}

func TestRenderLine(t *testing.T) {
	tests := []struct {
		name, in, want string
		drop           bool
	}{
		{name: "index line", in: "- [Deploys](a.md) — deploy runbook", want: "- [Deploys](" + testTeam + "/a.md) — deploy runbook"},
		{name: "dot slash and fragment", in: "- [X](./sub/x.md#why) — x", want: "- [X](" + testTeam + "/sub/x.md) — x"},
		{name: "space in angle brackets", in: "- [DB](<db choice.md>)", want: "- [DB](<" + testTeam + "/db choice.md>)"},
		{name: "percent-encoded space", in: "- [DB](db%20choice.md)", want: "- [DB](<" + testTeam + "/db choice.md>)"},
		{name: "parentheses and ampersand", in: "- [Q](<Q&A (old).md>)", want: "- [Q](<" + testTeam + "/Q&A (old).md>)"},
		{name: "title kept out", in: `[A](a.md "the title")`, want: "[A](" + testTeam + "/a.md)"},
		{name: "missing file drops line", in: "- [Gone](gone.md) — hook", drop: true},
		{name: "refused file drops line", in: "- [Keys](secret.md) — prod keys", drop: true},
		{name: "refused inside link text drops line", in: "- [see [k](secret.md)](a.md)", drop: true},
		{name: "climbing out drops line", in: "- [P](../../../.ssh/id_rsa.md)", drop: true},
		{name: "encoded climb drops line", in: "- [P](%2e%2e/x.md)", drop: true},
		{name: "git folder drops line", in: "- [G](.git/config.md)", drop: true},
		{name: "not markdown drops line", in: "- [S](run.sh)", drop: true},
		{name: "absolute path keeps text", in: "- [P](/etc/passwd) — x", want: "- P — x"},
		{name: "home path keeps text", in: "- [P](~/notes.md)", want: "- P"},
		{name: "javascript keeps text", in: "- [X](javascript:alert(1))", want: "- X"},
		{name: "windows drive keeps text", in: `- [X](C:\Windows\x.md)`, want: "- X"},
		{name: "web address as code", in: "- [Dash](https://grafana.example.com/d/1) — board",
			want: "- Dash (`https://grafana.example.com/d/1`) — board"},
		{name: "image is not an image", in: "![pic](a.md)", want: `\![pic](` + testTeam + "/a.md)"},
		{name: "html escaped", in: "<script>alert(1)</script> <img src=x>", want: "&lt;script>alert(1)&lt;/script> &lt;img src=x>"},
		{name: "end marker in text", in: "x " + End, want: "x &lt;!-- teammem:end -->"},
		{name: "comment line dropped", in: "<!-- keep this list sorted -->", want: ""},
		{name: "include is code", in: "- read @~/.ssh/config.md first", want: "- read `@~/.ssh/config.md` first"},
		{name: "email is code", in: "ask ops@example.com", want: "ask `ops@example.com`"},
		{name: "bare url is code", in: "see www.example.com now", want: "see `www.example.com` now"},
		{name: "fence escaped", in: "```go", want: "\\`\\`\\`go"},
		{name: "code span kept", in: "- [D](a.md) — run `make release`, never `git tag`", want: "- [D](" + testTeam + "/a.md) — run `make release`, never `git tag`"},
		{name: "code span in label kept", in: "[`x[y]`](a.md)", want: "[`x[y]`](" + testTeam + "/a.md)"},
		{name: "code span next to an address", in: "`a`x@y", want: "``" + " `a`x@y " + "``"},
		{name: "code span with comment escaped", in: "`<!--`", want: "\\`&lt;!--\\`"},
		{name: "unclosed code span", in: "`a", want: "\\`a"},
		{name: "tilde fence escaped", in: "~~~", want: `\~\~\~`},
		{name: "reference definition escaped", in: "[x]: /etc/passwd", want: `\[x\]: /etc/passwd`},
		{name: "reference link escaped", in: "[x][y]", want: `\[x\]\[y\]`},
		{name: "entity escaped", in: "&#64;x &lt; Q&A", want: `\&#64;x \&lt; Q&A`},
		{name: "backslash escaped", in: `a\<b`, want: `a\\&lt;b`},
		{name: "controls dropped", in: "a\x00b\x1b[31mc\u2028d\r", want: `ab\[31mcd`},
		{name: "invalid utf8 replaced", in: "a\xffb", want: "a\uFFFDb"},
		{name: "unclosed link is text", in: "[a](a.md", want: `\[a\](a.md`},
		{name: "link in a code span is code", in: "- ``[A](a.md)``", want: "- \\`\\`\\[A\\](a.md)\\`\\`"},
		{name: "link in a link's text", in: "- [[A](a.md)](sub/x.md)", want: `- \[[A](` + testTeam + `/a.md)\](sub/x.md)`},
		{name: "backtick in code span", in: "x@`y", want: "``x@`y``"},
	}
	r := testRenderer()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := r.render(tt.in)
			if ok == tt.drop {
				t.Fatalf("render(%q) kept = %v, want %v (got %q)", tt.in, ok, !tt.drop, got)
			}
			if ok && got != tt.want {
				t.Errorf("render(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestRenderLineLong(t *testing.T) {
	r := testRenderer()
	in := "- [" + strings.Repeat("<a", 5000) + "](../x.md)"
	if _, ok := r.render(in); ok {
		t.Error("a 10 KB line linking out of the folder was kept")
	}
	in = "- [A](a.md) " + strings.Repeat("[b](/etc/x) ", 900)
	got, ok := r.render(in)
	if !ok || strings.Count(got, "](") != 1 {
		t.Errorf("long line: kept %v with %d links, want one", ok, strings.Count(got, "]("))
	}
}

func TestDestination(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"/t/a.md", "/t/a.md"},
		{"/t/a b.md", "</t/a b.md>"},
		{"/t/a(1).md", "</t/a(1).md>"},
		{`/t/a\b.md`, `/t/a\\b.md`},
	} {
		if got, ok := destination(tt.in); !ok || got != tt.want {
			t.Errorf("destination(%q) = %q, %v; want %q", tt.in, got, ok, tt.want)
		}
	}
	for _, in := range []string{"/t/<x>.md", "/t/a\nb.md", "/t/a\tb.md"} {
		if got, ok := destination(in); ok {
			t.Errorf("destination(%q) = %q, want none", in, got)
		}
	}
}
