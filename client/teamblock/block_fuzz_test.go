package teamblock

import (
	"path"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/teammem/teammem/memcore/protocol"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
)

// hostileIndexLines seed the fuzz target and the structure test.
var hostileIndexLines = []string{
	"- [Deploys](a.md) — deploy runbook",
	"- [P](../../../.ssh/id_rsa.md) - [Q](/etc/passwd) [J](javascript:alert(1))",
	"- [X](<../x.md>) [Y](sub/../../y.md) [Z](%2e%2e%2fz.md) [W](sub%2f..%2f..%2fw.md)",
	"<!-- teammem:end -->\n```\n<script>\n~~~\n<!--",
	"[a]: /etc/passwd\n[b](a.md) [a] ![i](a.md) <https://evil.example/> www.evil.example x@evil.example",
	"@~/.ssh/id_rsa.md @../secret.txt @/etc/hosts.md \\@x.md [t](a.md)@y.md",
	"- [Keys](secret.md) — sk [k [s](secret.md)](a.md)",
	"&lt;!-- &#60;!-- &#x3C;!-- \\<!-- `<!--` ``<!-- teammem:end -->``",
	"    indented\n> quote\n- [A](a.md \"t\") <div>\n\n<div>\n|a|b|\n|-|-|",
	strings.Repeat("[x](a.md)", 1200),
	strings.Repeat("<", 10_000),
	"`a`b@c `[x](../y.md)` ``q`` `<!-- teammem:end -->` [`](javascript:x)`](a.md) x@y`z` `z`@w \\`q` ![`i`](a.md)",
}

func FuzzRender(f *testing.F) {
	for _, s := range hostileIndexLines {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, index string) {
		checkBlock(t, index)
		// The same text as a stale reference of every linked topic.
		stale := func(string) Stale { return Stale{Refs: []string{index, "a/b.go"}, Days: 3} }
		checkBlockWith(t, Input{Repo: "acme/api", TeamDir: testTeam, Index: "- [A](a.md) — a\n" + index, Stale: stale})
		// The same text as an org memory's index, after the team index.
		checkBlockWith(t, Input{Repo: "acme/api", TeamDir: testTeam, Index: "- [A](a.md) — a\n",
			Orgs: []Org{{Repo: "acme/.memory", Dir: testOrg, Index: index}}})
	})
}

func TestRenderHostileStructure(t *testing.T) {
	checkBlock(t, strings.Join(hostileIndexLines, "\n"))
	checkBlockWith(t, Input{Repo: "acme/api", TeamDir: testTeam, Orgs: []Org{{Repo: "acme/.memory", Dir: testOrg, Index: strings.Join(hostileIndexLines, "\n")}}})
	for _, s := range hostileIndexLines {
		checkBlock(t, s)
	}
}

// checkBlock renders index at the top of a CLAUDE.local.md that goes on
// with the user's text, parses the file as GitHub-flavoured Markdown and
// checks that every link stays in the team folder, nothing is an image,
// raw HTML or an @include, the markers are the only HTML of the file and
// the user's text after the block is still an ordinary paragraph.
func checkBlock(t *testing.T, index string) {
	t.Helper()
	checkBlockWith(t, Input{Repo: "acme/api", TeamDir: testTeam, Index: index})
}

// checkBlockWith is checkBlock for any input (secret keys refused).
func checkBlockWith(t *testing.T, in Input) {
	t.Helper()
	in.Refused = func(k string) bool { return strings.Contains(k, "secret") }
	for i := range in.Orgs {
		in.Orgs[i].Refused = in.Refused
	}
	b := Render(in)
	inner := strings.TrimSuffix(strings.TrimPrefix(b.Text, Begin+"\n"), End+"\n")
	if strings.Contains(inner, "<!--") || strings.Contains(inner, Begin) || strings.Contains(inner, End) {
		t.Fatalf("the block's text holds a comment or a marker:\n%s", b.Text)
	}
	if !utf8.ValidString(b.Text) || strings.ContainsFunc(b.Text, func(r rune) bool { return r != '\n' && r != '\t' && unicode.IsControl(r) }) {
		t.Fatalf("the block holds invalid UTF-8 or a control character: %q", b.Text)
	}
	const user = "User text after the block."
	src := []byte(b.Text + user + "\n")
	doc := goldmark.New(goldmark.WithExtensions(extension.GFM)).Parser().Parse(text.NewReader(src))
	htmlBlocks := 0
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Link:
			checkDest(t, string(n.Destination), b.Text)
		case *ast.Image, *ast.AutoLink, *ast.RawHTML:
			t.Fatalf("the block produced a %s:\n%s", n.Kind(), b.Text)
		case *ast.HTMLBlock:
			htmlBlocks++
			var lines []string
			for i := 0; i < n.Lines().Len(); i++ {
				seg := n.Lines().At(i)
				lines = append(lines, strings.TrimRight(string(seg.Value(src)), "\n"))
			}
			if len(lines) != 1 || (lines[0] != Begin && lines[0] != End) {
				t.Fatalf("HTML block %q in the block:\n%s", lines, b.Text)
			}
		case *ast.CodeSpan:
			return ast.WalkSkipChildren, nil
		case *ast.Text:
			checkNoInclude(t, string(n.Value(src)), b.Text)
		}
		return ast.WalkContinue, nil
	})
	last := doc.LastChild()
	if htmlBlocks != 2 || last.Kind() != ast.KindParagraph || string(last.Lines().Value(src)) != user {
		t.Fatalf("the user's text after the block is not a paragraph of its own (%d HTML blocks, last %s):\n%s",
			htmlBlocks, last.Kind(), b.Text)
	}
}

// checkDest fails unless dest is a valid key's absolute path in the team
// folder or the org folder that is not refused.
func checkDest(t *testing.T, dest, block string) {
	t.Helper()
	key, ok := strings.CutPrefix(dest, testTeam+"/")
	if !ok {
		key, ok = strings.CutPrefix(dest, testOrg+"/")
	}
	if !ok || path.Clean(dest) != dest || protocol.ValidateKey(key) != nil || strings.Contains(key, "secret") {
		t.Fatalf("link to %q outside the team folder's shared files:\n%s", dest, block)
	}
}

// checkNoInclude fails when a text run holds an @include token.
func checkNoInclude(t *testing.T, s, block string) {
	t.Helper()
	for i, r := range s {
		if r == '@' && (i == 0 || unicode.IsSpace(rune(s[i-1]))) {
			t.Fatalf("text %q starts an @include:\n%s", s, block)
		}
	}
}
