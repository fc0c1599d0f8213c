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
}

// Lint rule identifiers.
const (
	RuleDeadLink   = "dead-link"
	RuleLongLine   = "long-line"
	RuleOverBudget = "over-budget"
)

// LintIndex checks a MEMORY.md index: links to files that do not exist
// (exists is asked with the link target relative to the index's folder,
// URL-unescaped and without #fragment; nil skips the check; web, mail and
// in-page links are not checked), lines of 150 characters or more, and the
// 200-line / 25,000-byte budget as the loader applies it (after the BOM, the
// frontmatter and block-level comments are removed). Links inside fenced
// code are ignored.
func LintIndex(path, content string, exists func(rel string) bool) []LintProblem {
	content = strings.TrimPrefix(content, utf8BOM)
	var problems []LintProblem
	inFence := false
	for i, line := range strings.Split(strings.TrimSuffix(content, "\n"), "\n") {
		n := i + 1
		if protocol.IndexFenceToggle(line) {
			inFence = !inFence
		}
		if c := utf8.RuneCountInString(line); c >= MaxIndexLineChars {
			problems = append(problems, LintProblem{path, n, RuleLongLine,
				fmt.Sprintf("line has %d characters; keep index entries under %d", c, MaxIndexLineChars)})
		}
		if !inFence && exists != nil {
			problems = append(problems, deadLinks(path, n, line, exists)...)
		}
	}
	if p, ok := budgetProblem(path, content); ok {
		problems = append(problems, p)
	}
	return problems
}

// deadLinks reports the local link targets of one line that do not exist.
func deadLinks(path string, n int, line string, exists func(string) bool) []LintProblem {
	var out []LintProblem
	for _, target := range protocol.IndexLinks(line) {
		if !exists(target) {
			out = append(out, LintProblem{path, n, RuleDeadLink, "link to missing file " + target})
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
	return LintProblem{path, line, RuleOverBudget, fmt.Sprintf(
		"index loads as %d lines and %d bytes; only %d lines and %d bytes are loaded, the rest is cut",
		countLines(a.content), len(a.content), MaxIndexLines, MaxIndexBytes)}, true
}
