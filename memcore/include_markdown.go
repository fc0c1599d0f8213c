package memcore

import (
	"strings"
	"sync"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// markdownParser is a plain CommonMark parser (no extensions), built once;
// goldmark parsers keep no per-document state.
var markdownParser = sync.OnceValue(func() parser.Parser { return goldmark.New().Parser() })

// analysis is the result of one Markdown parse: the content with block-level
// HTML comments removed and the raw include paths in order of appearance.
type analysis struct {
	content  string
	includes []string
	edits    []edit // the removals that made content, in source order
}

// sourceOffset maps a byte offset of content back to the source; an offset
// inside replaced text maps to the start of what it replaced.
func (a analysis) sourceOffset(off int) int {
	shift := 0
	for _, e := range a.edits {
		start := e.start - shift
		if off < start {
			break
		}
		if off < start+len(e.repl) {
			return e.start
		}
		shift += e.stop - e.start - len(e.repl)
	}
	return off + shift
}

// analyzeMarkdown parses src once and both strips block-level HTML comments
// and collects include tokens as Claude Code's scan reads them (see
// scanIncludeTokens): from text nodes, and from the raw text of every
// paragraph in a list item (link destinations and code spans included);
// never from code blocks, nor outside list items from code spans,
// autolinks, link destinations or raw HTML, except the text left after a
// stripped comment. Documents with neither `<!--` nor `@` skip the parse.
func analyzeMarkdown(src string) analysis {
	if !strings.Contains(src, "<!--") && !strings.Contains(src, "@") {
		return analysis{content: src}
	}
	source := []byte(src)
	doc := markdownParser().Parse(text.NewReader(source))
	w := &mdWalker{src: src, runStart: -1, runStop: -1}
	_ = ast.Walk(doc, w.visit)
	w.flushRun()
	return analysis{content: w.splice(), includes: dedupe(w.includes), edits: w.edits}
}

// mdWalker accumulates the edits and include tokens of one document.
type mdWalker struct {
	src      string
	edits    []edit
	includes []string
	runStart int // start of the current run of adjacent text nodes, -1 none
	runStop  int
}

// edit replaces src[start:stop] with repl.
type edit struct {
	start, stop int
	repl        string
}

// visit is the ast.Walker callback.
func (w *mdWalker) visit(n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	switch n := n.(type) {
	case *ast.Text:
		w.addText(n.Segment.Start, n.Segment.Stop, n.SoftLineBreak() || n.HardLineBreak())
		return ast.WalkContinue, nil
	case *ast.FencedCodeBlock, *ast.CodeBlock, *ast.CodeSpan, *ast.AutoLink, *ast.RawHTML:
		w.flushRun()
		return ast.WalkSkipChildren, nil
	case *ast.HTMLBlock:
		w.flushRun()
		if n.HTMLBlockType == ast.HTMLBlockType2 {
			w.stripCommentBlock(n)
		}
		return ast.WalkSkipChildren, nil
	}
	if n.Type() == ast.TypeBlock {
		w.flushRun()
	}
	if k := n.Kind(); (k == ast.KindParagraph || k == ast.KindTextBlock) && inListItem(n) {
		w.scanRawLines(n)
	}
	return ast.WalkContinue, nil
}

// inListItem reports whether n lies inside a list item. Claude Code scans
// the raw text of a list item's paragraphs; a paragraph of a block quote
// inside an item is scanned raw too, which reads more than the client (it
// scans only the quote's inline text) but never less.
func inListItem(n ast.Node) bool {
	for p := n.Parent(); p != nil; p = p.Parent() {
		if p.Kind() == ast.KindListItem {
			return true
		}
	}
	return false
}

// scanRawLines scans the source lines of a paragraph as written: code
// spans, link destinations and titles, escapes and all. Its inline text is
// scanned as well, by the walk of its children.
func (w *mdWalker) scanRawLines(n ast.Node) {
	lines := n.Lines()
	var b strings.Builder
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		b.WriteString(w.src[seg.Start:seg.Stop])
	}
	w.includes = scanIncludeTokens(w.includes, b.String(), true)
}

// addText extends the current run when the segment is contiguous with it,
// else scans the finished run and starts a new one. A line break ends it.
func (w *mdWalker) addText(start, stop int, lineEnd bool) {
	if w.runStart < 0 || start != w.runStop {
		w.flushRun()
		w.runStart = start
	}
	w.runStop = stop
	if lineEnd {
		w.flushRun()
	}
}

// flushRun scans the current text run for include tokens.
func (w *mdWalker) flushRun() {
	if w.runStart >= 0 && w.runStop > w.runStart {
		w.includes = scanIncludeTokens(w.includes, w.src[w.runStart:w.runStop], false)
	}
	w.runStart, w.runStop = -1, -1
}

// splice applies the edits (in source order, non-overlapping) to src.
func (w *mdWalker) splice() string {
	if len(w.edits) == 0 {
		return w.src
	}
	var b strings.Builder
	b.Grow(len(w.src))
	last := 0
	for _, e := range w.edits {
		b.WriteString(w.src[last:e.start])
		b.WriteString(e.repl)
		last = e.stop
	}
	b.WriteString(w.src[last:])
	return b.String()
}

// dedupe keeps the first occurrence of each string.
func dedupe(in []string) []string {
	if len(in) < 2 {
		return in
	}
	seen := make(map[string]bool, len(in))
	out := in[:0]
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// ExtractIncludes returns the raw include paths of a Markdown document in
// order of appearance, without duplicates: tokens such as `@docs/a.md`,
// `@./a.md`, `@../a.md`, `@~/a.md` or `@/abs/a.md` where Claude Code's scan
// finds them (a CommonMark parse; text nodes, and the raw text of list
// items, link destinations and code spans included; never code blocks). `\ ` in a token
// is returned as a space and a `#fragment` is dropped. Paths are not
// resolved.
func ExtractIncludes(markdown string) []string {
	return analyzeMarkdown(markdown).includes
}
