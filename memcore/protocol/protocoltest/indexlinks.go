package protocoltest

// IndexLinkCase is an index (the content of the top MEMORY.md, most often
// one line) and the keys its lines link.
type IndexLinkCase struct {
	Name  string
	Index string
	// Keys are the keys the index links, in order, each once.
	Keys []string
}

// IndexLinkCases are the index lines every surface that reads index links
// runs: write_memory must accept a line linking the key and delete_memory
// remove it, search index the line under each key, the managed block
// render each key's link, the lint check each, the web UI link each
// entry's page; and none of them may take the hostile ones for links.
var IndexLinkCases = []IndexLinkCase{
	{"plain", "- [Deploys](deploy.md) — how we ship", []string{"deploy.md"}},
	{"subfolder", "- [DB](topics/db.md)", []string{"topics/db.md"}},
	{"angle brackets with a space", "- [A](<topics/a b.md>)", []string{"topics/a b.md"}},
	{"nested brackets in the text", "- [A [nested]](b.md)", []string{"b.md"}},
	{"parentheses in the destination", "- [A](f(1).md)", []string{"f(1).md"}},
	{"title", `- [A](a.md "the title") — hook`, []string{"a.md"}},
	{"title in parentheses after angle brackets", "- [A](<a.md> (t))", []string{"a.md"}},
	{"dot slash", "- [A](./a.md)", []string{"a.md"}},
	{"fragment", "- [A](a.md#part)", []string{"a.md"}},
	{"percent-escape", "- [Notes](my%20notes.md)", []string{"my notes.md"}},
	{"escaped parenthesis", `- [A](g\(.md)`, []string{"g(.md"}},
	{"two links, each once", "- [A](a.md), see [B](b.md) and [A again](a.md#x)", []string{"a.md", "b.md"}},
	{"code span beside a link", "- `x` [A](a.md) — run `make`", []string{"a.md"}},
	{"code span in the text", "- [`A]`](a.md)", []string{"a.md"}},
	{"a link in a link's text", "- [[S](s.md)](a.md)", []string{"s.md"}},
	{"after a fenced block", "```\nx\n```\n- [A](a.md)", []string{"a.md"}},

	{"web link", "- [W](https://example.com/a.md)", nil},
	{"mailto", "- [M](mailto:ops@example.com)", nil},
	{"javascript", "- [J](javascript:alert(1))", nil},
	{"in-page anchor", "- [T](#a.md)", nil},
	{"absolute path", "- [P](/etc/passwd.md)", nil},
	{"home path", "- [P](~/notes.md)", nil},
	{"windows drive", `- [X](C:\Windows\x.md)`, nil},
	{"climbs out", "- [P](../x.md)", nil},
	{"climbs out percent-encoded", "- [P](%2e%2e/x.md)", nil},
	{"climbs out through a folder", "- [P](a/../../x.md)", nil},
	{"encoded absolute path", "- [P](%2Fetc%2Fx.md)", nil},
	{"not a memory file", "- [E](tool.exe)", nil},
	{"unbalanced brackets", "- [[[ (a.md) ]", nil},
	{"unclosed link", "- [A](a.md", nil},
	{"unbalanced parentheses", "- [A](f(1.md)", nil},
	{"space in a bare destination", "- [A](a b.md)", nil},
	{"space before the parenthesis", "- [A] (a.md)", nil},
	{"escaped bracket", `- \[A](a.md)`, nil},
	{"inside a code span", "- `[A](a.md)` is how to link", nil},
	{"code span across the bracket", "- [A `b](a.md)`", nil},
	{"reference link", "- [A][a]", nil},
	{"fenced code", "```\n- [A](a.md)\n```", nil},
	{"tilde fence", "~~~md\n- [A](a.md)\n~~~", nil},
	{"unclosed fence", "````\n- [A](a.md)\n```", nil},
}
