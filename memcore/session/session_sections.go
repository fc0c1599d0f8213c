package session

import (
	"strings"
	"unicode/utf8"
)

// Session notes budgets (§10).
const (
	// MaxSessionSectionTokens is the most a section should hold.
	MaxSessionSectionTokens = 2000
	// MaxSessionTotalTokens is the most the whole notes file should hold.
	MaxSessionTotalTokens = 12000
	// maxCompactSectionChars is the cut point of TruncateForCompact.
	maxCompactSectionChars = MaxSessionSectionTokens * 4
)

// SectionTruncatedMarker is the line TruncateForCompact puts where it cut.
const SectionTruncatedMarker = "[... section truncated for length ...]"

// EstimateTokens is the rough token count of s: its characters (runes)
// divided by four, rounded up.
func EstimateTokens(s string) int {
	return (utf8.RuneCountInString(s) + 3) / 4
}

// SectionSize is one section's estimated size.
type SectionSize struct {
	// Header is the section's "# Title" line.
	Header string `json:"header"`
	// Tokens is EstimateTokens of the section's text below its header,
	// surrounding white space trimmed.
	Tokens int `json:"tokens"`
}

// SectionReport is the result of AnalyzeSections.
type SectionReport struct {
	// Sections in order of appearance.
	Sections []SectionSize
	// TotalTokens is EstimateTokens of the whole content.
	TotalTokens int
	// Oversized are the sections over MaxSessionSectionTokens, largest first.
	Oversized []SectionSize
	// OverBudget is true when TotalTokens exceeds MaxSessionTotalTokens.
	OverBudget bool
}

// noteSection is a header line (empty for text before the first header) and
// the lines below it.
type noteSection struct {
	header string
	lines  []string
}

// splitSections splits notes at "# " lines outside fenced code blocks (a
// "# comment" inside a ``` block is content, not a header).
func splitSections(content string) []noteSection {
	sections := []noteSection{{}}
	var fence string
	for _, line := range strings.Split(content, "\n") {
		fence = trackFence(fence, line)
		if fence == "" && strings.HasPrefix(line, "# ") {
			sections = append(sections, noteSection{header: line})
			continue
		}
		cur := &sections[len(sections)-1]
		cur.lines = append(cur.lines, line)
	}
	return sections
}

// trackFence returns the open fence marker after line, given the one open
// before it ("" when outside a fenced code block).
func trackFence(open, line string) string {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 {
		return open
	}
	if open != "" {
		if strings.HasPrefix(t, open) && strings.Trim(t, open[:1]+" \t") == "" {
			return ""
		}
		return open
	}
	for _, c := range []string{"`", "~"} {
		n := len(t) - len(strings.TrimLeft(t, c))
		if n >= 3 {
			return strings.Repeat(c, n)
		}
	}
	return ""
}

// AnalyzeSections measures every section of session notes so that a writer
// can be told which ones to condense.
func AnalyzeSections(content string) SectionReport {
	r := SectionReport{TotalTokens: EstimateTokens(content)}
	for _, s := range splitSections(content) {
		if s.header == "" {
			continue
		}
		size := SectionSize{Header: s.header, Tokens: EstimateTokens(strings.TrimSpace(strings.Join(s.lines, "\n")))}
		r.Sections = append(r.Sections, size)
		if size.Tokens > MaxSessionSectionTokens {
			r.Oversized = insertBySize(r.Oversized, size)
		}
	}
	r.OverBudget = r.TotalTokens > MaxSessionTotalTokens
	return r
}

// insertBySize inserts s keeping the list largest first (stable).
func insertBySize(list []SectionSize, s SectionSize) []SectionSize {
	i := len(list)
	for i > 0 && list[i-1].Tokens < s.Tokens {
		i--
	}
	list = append(list, SectionSize{})
	copy(list[i+1:], list[i:])
	list[i] = s
	return list
}

// TruncateForCompact cuts every section whose text is over 8,000 characters
// at the last line boundary that fits and appends SectionTruncatedMarker
// (after closing a code fence left open by the cut). It returns the text and
// whether anything was cut; text that needs no cut comes back unchanged.
func TruncateForCompact(content string) (string, bool) {
	var out []string
	cut := false
	for _, s := range splitSections(content) {
		lines, c := truncateSection(s)
		out = append(out, lines...)
		cut = cut || c
	}
	return strings.Join(out, "\n"), cut
}

// truncateSection returns a section's lines, cut to the budget.
func truncateSection(s noteSection) ([]string, bool) {
	var kept []string
	if s.header != "" {
		kept = append(kept, s.header)
	}
	if s.header == "" || utf8.RuneCountInString(strings.Join(s.lines, "\n")) <= maxCompactSectionChars {
		return append(kept, s.lines...), false
	}
	chars := 0
	fence := ""
	for _, line := range s.lines {
		n := utf8.RuneCountInString(line) + 1
		if chars+n > maxCompactSectionChars {
			break
		}
		kept = append(kept, line)
		fence = trackFence(fence, line)
		chars += n
	}
	if fence != "" {
		kept = append(kept, fence)
	}
	return append(kept, "", SectionTruncatedMarker), true
}
