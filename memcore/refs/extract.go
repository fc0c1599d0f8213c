package refs

import (
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"

	"github.com/teammem/teammem/memcore"
)

// markdownParser is shared: goldmark parsers keep no per-document state.
var markdownParser = sync.OnceValue(func() parser.Parser { return goldmark.New().Parser() })

// inPathRe is the text after a symbol's code span that names its file:
// " in client/push.go" (the path may also be the next code span or link).
var inPathRe = regexp.MustCompile(`^\s+in\s+(?:the\s+file\s+)?(\S*)`)

// Options tune Extract.
type Options struct {
	// MemoryFile reports whether a link destination names a file of the
	// memory folder itself (a link between topics), which is not a
	// reference to the repository. Nil: none does.
	MemoryFile func(dest string) bool
}

// Extract returns the references of a topic file's content, in order of
// appearance, without duplicates, at most MaxRefs: first the
// frontmatter's `refs:` list, then the body's code spans and link
// destinations that Parse accepts, and symbols written next to a path
// (“ `RetryPush` in client/push.go “). Code blocks, raw HTML and
// autolinks are skipped.
func Extract(content string, opts Options) []Ref {
	content = strings.TrimPrefix(content, "\uFEFF")
	fm, body, _ := memcore.ParseFrontmatter(content)
	x := extractor{opts: opts, seen: map[string]bool{}}
	x.frontmatter(fm, content[:len(content)-len(body)])
	src := []byte(body)
	x.src, x.lineBase = src, strings.Count(content[:len(content)-len(body)], "\n")
	x.lineStarts = lineStarts(body)
	doc := markdownParser().Parse(text.NewReader(src))
	_ = ast.Walk(doc, x.visit)
	return x.refs
}

// extractor collects the references of one file.
type extractor struct {
	opts       Options
	src        []byte
	lineBase   int   // lines before the body (the frontmatter)
	lineStarts []int // offsets of the body's line starts
	refs       []Ref
	seen       map[string]bool
}

// add keeps r unless a reference to the same thing is already kept.
func (x *extractor) add(r Ref) {
	id := r.Path + "\x00" + strconv.FormatBool(r.Dir) + r.Symbol + "\x00" + strconv.Itoa(r.Start) + "-" + strconv.Itoa(r.End)
	if len(x.refs) >= MaxRefs || x.seen[id] {
		return
	}
	x.seen[id] = true
	x.refs = append(x.refs, r)
}

// frontmatter adds the `refs:` list: a YAML list of strings, or one string.
func (x *extractor) frontmatter(fm map[string]any, block string) {
	var items []string
	switch v := fm["refs"].(type) {
	case string:
		items = []string{v}
	case []any:
		for _, e := range v {
			if s, ok := e.(string); ok {
				items = append(items, s)
			}
		}
	}
	lines := strings.Split(block, "\n")
	for _, it := range items {
		if r, ok := Parse(it, true); ok {
			r.Line = blockLine(lines, r.Text)
			x.add(r)
		}
	}
}

// blockLine is the 1-based line of the frontmatter holding s; 1 if none.
func blockLine(lines []string, s string) int {
	for i, l := range lines {
		if strings.Contains(l, s) {
			return i + 1
		}
	}
	return 1
}

// visit is the ast.Walker callback.
func (x *extractor) visit(n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	switch n := n.(type) {
	case *ast.FencedCodeBlock, *ast.CodeBlock, *ast.HTMLBlock, *ast.RawHTML, *ast.AutoLink:
		return ast.WalkSkipChildren, nil
	case *ast.CodeSpan:
		x.codeSpan(n)
		return ast.WalkSkipChildren, nil
	case *ast.Link:
		x.link(n)
	}
	return ast.WalkContinue, nil
}

// codeSpan adds the reference a code span holds, or the symbol it names in
// the path written after it.
func (x *extractor) codeSpan(n *ast.CodeSpan) {
	s, off := x.inlineText(n)
	if r, ok := Parse(s, false); ok {
		r.Line = x.line(off)
		x.add(r)
		return
	}
	m := symbolRe.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return
	}
	if r, ok := x.pathAfter(n); ok && !r.Dir && r.Symbol == "" && r.Start == 0 {
		r.Text, r.Symbol, r.Line = strings.TrimSpace(s)+" in "+r.Text, m[1], x.line(off)
		x.add(r)
	}
}

// pathAfter reads the path named after a symbol's code span: " in PATH" in
// the text that follows, or " in " followed by a code span or link.
func (x *extractor) pathAfter(n ast.Node) (Ref, bool) {
	var after strings.Builder
	next := n.NextSibling()
	for ; next != nil; next = next.NextSibling() {
		t, ok := next.(*ast.Text)
		if !ok {
			break
		}
		after.Write(t.Segment.Value(x.src))
		if t.SoftLineBreak() || t.HardLineBreak() {
			after.WriteByte(' ')
		}
	}
	m := inPathRe.FindStringSubmatch(after.String())
	if m == nil {
		return Ref{}, false
	}
	if m[1] != "" {
		return Parse(strings.TrimRight(m[1], ".,;:!?)"), false)
	}
	switch next := next.(type) {
	case *ast.CodeSpan:
		s, _ := x.inlineText(next)
		return Parse(s, false)
	case *ast.Link:
		return x.linkRef(next)
	}
	return Ref{}, false
}

// link adds the reference a link destination holds.
func (x *extractor) link(n *ast.Link) {
	if r, ok := x.linkRef(n); ok {
		_, off := x.inlineText(n)
		r.Line = x.line(off)
		x.add(r)
	}
}

// linkRef reads a link destination as a reference, unless it names a file
// of the memory folder.
func (x *extractor) linkRef(n *ast.Link) (Ref, bool) {
	dest := string(n.Destination)
	if x.opts.MemoryFile != nil {
		file, _, _ := strings.Cut(dest, "#")
		if x.opts.MemoryFile(file) {
			return Ref{}, false
		}
	}
	return Parse(dest, false)
}

// inlineText returns the source text of an inline node's text children
// and the offset of the first (-1 when it has none).
func (x *extractor) inlineText(n ast.Node) (string, int) {
	var b strings.Builder
	off := -1
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if t, ok := c.(*ast.Text); ok {
			if off < 0 {
				off = t.Segment.Start
			}
			b.Write(t.Segment.Value(x.src))
		}
	}
	return b.String(), off
}

// line converts a body offset to the file's 1-based line (the line of the
// block's start when the offset is unknown).
func (x *extractor) line(off int) int {
	if off < 0 {
		off = 0
	}
	return x.lineBase + sort.Search(len(x.lineStarts), func(i int) bool { return x.lineStarts[i] > off })
}

// lineStarts returns the offsets where the lines of s start.
func lineStarts(s string) []int {
	starts := []int{0}
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}
