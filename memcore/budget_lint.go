package memcore

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/teammem/teammem/memcore/protocol"
)

// LintProblem is one finding of LintIndex.
type LintProblem struct {
	Path    string `json:"path"`
	Line    int    `json:"line"` // 1-based; for over-budget, the first line that is not loaded
	Rule    string `json:"rule"`
	Message string `json:"message"`
	// Key, Reference and Reason are set for a stale reference: the topic's
	// key in its memory folder, the reference as written, and why it is
	// stale (refcheck's reasons).
	Key       string `json:"key,omitempty"`
	Reference string `json:"reference,omitempty"`
	Reason    string `json:"reason,omitempty"`
}

// Lint rule identifiers.
const (
	RuleDeadLink   = "dead-link"
	RuleLongLine   = "long-line"
	RuleOverBudget = "over-budget"
	// RuleStaleReference: a topic names a path, line range or symbol that
	// the checkout's HEAD does not hold (client/refcheck).
	RuleStaleReference = "stale-reference"
	// RuleStaleAge: nobody changed or confirmed a topic for longer than
	// --stale-after.
	RuleStaleAge = "stale-age"
)

// LintIndex checks a MEMORY.md index: links to files that do not exist
// (exists is asked with the link target relative to the index's folder,
// as protocol.LinkTarget reads it: URL-unescaped, without #fragment,
// cleaned; nil skips the check; web, mail and in-page links are not
// checked), lines of 150 characters or more, and the
// 200-line / 25,000-byte budget as the loader applies it (after the BOM, the
// frontmatter and block-level comments are removed). Links inside fenced
// code are ignored.
func LintIndex(path, content string, exists func(rel string) bool) []LintProblem {
	content = strings.TrimPrefix(content, utf8BOM)
	var problems []LintProblem
	var fence protocol.Fence
	for i, line := range strings.Split(strings.TrimSuffix(content, "\n"), "\n") {
		n := i + 1
		line = strings.TrimSuffix(line, "\r")
		code := fence.Code(line)
		if c := utf8.RuneCountInString(line); c >= MaxIndexLineChars {
			problems = append(problems, LintProblem{Path: path, Line: n, Rule: RuleLongLine, Message: fmt.Sprintf("line has %d characters; keep index entries under %d", c, MaxIndexLineChars)})
		}
		if !code && exists != nil {
			problems = append(problems, deadLinks(path, n, line, exists)...)
		}
	}
	if p, ok := budgetProblem(path, content); ok {
		problems = append(problems, p)
	}
	return problems
}

// deadLinks reports the local link targets of one line that do not exist
// (protocol.LinkTargets: the links every surface reads).
func deadLinks(path string, n int, line string, exists func(string) bool) []LintProblem {
	var out []LintProblem
	for _, target := range protocol.LinkTargets(line) {
		if !exists(target) {
			out = append(out, LintProblem{Path: path, Line: n, Rule: RuleDeadLink, Message: "link to missing file " + target})
		}
	}
	return out
}

// budgetProblem reports an index over the line or byte budget. It measures
// what the loader measures (BOM, frontmatter and block-level HTML comments
// removed) and points at the line of the file that holds the first line
// that would not be loaded.
func budgetProblem(path, content string) (LintProblem, bool) {
	content = strings.TrimPrefix(content, utf8BOM)
	_, body, _ := ParseFrontmatter(content)
	a := analyzeMarkdown(body)
	_, kept, truncated := truncateIndex(path, a.content)
	if !truncated {
		return LintProblem{}, false
	}
	fmLines := strings.Count(content[:len(content)-len(body)], "\n")
	cut := a.sourceOffset(len(firstLines(a.content, countLines(kept))))
	line := fmLines + strings.Count(body[:cut], "\n") + 1
	return LintProblem{Path: path, Line: line, Rule: RuleOverBudget, Message: fmt.Sprintf(
		"index loads as %d lines and %d bytes; only %d lines and %d bytes are loaded, the rest is cut",
		countLines(a.content), len(a.content), MaxIndexLines, MaxIndexBytes)}, true
}
