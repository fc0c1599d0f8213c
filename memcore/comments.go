package memcore

import (
	"strings"

	"github.com/yuin/goldmark/ast"
)

// StripHTMLComments removes `<!-- ... -->` comments that form block-level
// HTML in the CommonMark sense. Comments inside fenced or indented code,
// code spans and inline HTML inside a paragraph are kept, and an unclosed
// `<!--` is left alone. Text after a comment's `-->` on the same block is
// kept; a block that held only comments disappears with its line break.
func StripHTMLComments(markdown string) string {
	return analyzeMarkdown(markdown).content
}

// stripCommentBlock records the edit that removes the comments of one type-2
// HTML block and scans what is left of it for includes.
func (w *mdWalker) stripCommentBlock(n *ast.HTMLBlock) {
	start, stop, ok := htmlBlockSpan(n)
	if !ok {
		return
	}
	residue, changed := removeComments(w.src[start:stop])
	if !changed {
		return
	}
	if strings.TrimSpace(residue) == "" {
		w.edits = append(w.edits, edit{start: lineStart(w.src, start), stop: stop})
		return
	}
	residue = strings.TrimLeft(residue, " \t")
	w.edits = append(w.edits, edit{start: start, stop: stop, repl: residue})
	for _, line := range strings.Split(residue, "\n") {
		w.includes = scanIncludeTokens(w.includes, strings.TrimSpace(line), true)
	}
}

// htmlBlockSpan returns the source range of an HTML block, closure line and
// trailing line break included.
func htmlBlockSpan(n *ast.HTMLBlock) (start, stop int, ok bool) {
	lines := n.Lines()
	start, stop = -1, -1
	if lines.Len() > 0 {
		start, stop = lines.At(0).Start, lines.At(lines.Len()-1).Stop
	}
	if n.HasClosure() {
		if start < 0 {
			start = n.ClosureLine.Start
		}
		stop = max(stop, n.ClosureLine.Stop)
	}
	return start, stop, start >= 0 && stop > start
}

// removeComments deletes every closed `<!-- ... -->` in s; an unclosed one
// and everything after it stay.
func removeComments(s string) (string, bool) {
	var b strings.Builder
	changed := false
	for {
		i := strings.Index(s, "<!--")
		if i < 0 {
			break
		}
		j := strings.Index(s[i+4:], "-->")
		if j < 0 {
			break
		}
		b.WriteString(s[:i])
		s = s[i+4+j+3:]
		changed = true
	}
	b.WriteString(s)
	return b.String(), changed
}

// lineStart moves start back over container markup (blockquote `>` and
// indentation) to the start of its line, so that removing a block removes
// its whole line.
func lineStart(src string, start int) int {
	i := start
	for i > 0 && (src[i-1] == ' ' || src[i-1] == '\t' || src[i-1] == '>') {
		i--
	}
	if i == 0 || src[i-1] == '\n' {
		return i
	}
	return start
}
