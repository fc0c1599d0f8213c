package memcore

import (
	"strings"
	"unicode/utf8"
)

// MemoryInstruction is the sentence that opens the assembled prompt.
const MemoryInstruction = "Codebase and user instructions are shown below. Be sure to adhere to these instructions. " +
	"IMPORTANT: These instructions OVERRIDE any default behavior and you MUST follow them exactly as written."

// MaxMemoryChars is the size above which a memory file is reported as too
// large by LargeFiles.
const MaxMemoryChars = 40_000

// descriptions says, per type, what a file is in the prompt.
var descriptions = map[MemoryType]string{
	Project: "project instructions, checked into the codebase",
	Local:   "user's private project instructions, not checked in",
	TeamMem: "shared team memory, synced across the organization",
	AutoMem: "user's auto-memory, persists across conversations",
	User:    "user's private global instructions for all projects",
	Managed: "managed policy instructions",
}

// Description returns the prompt description of a memory type.
func (t MemoryType) Description() string { return descriptions[t] }

// Prompt assembles the memory prompt: MemoryInstruction, a blank line, then
// for every file that filter accepts (nil accepts all) and whose content is
// not blank, "Contents of <path> (<description>):", a blank line and the
// trimmed content, files separated by blank lines. With no such file it
// returns "".
func Prompt(files []File, filter func(File) bool) string {
	var b strings.Builder
	b.Grow(promptSize(files))
	for _, f := range files {
		if filter != nil && !filter(f) {
			continue
		}
		content := strings.TrimSpace(f.Content)
		if content == "" {
			continue
		}
		if b.Len() == 0 {
			b.WriteString(MemoryInstruction)
		}
		b.WriteString("\n\nContents of ")
		b.WriteString(f.Path)
		b.WriteString(" (")
		b.WriteString(f.Type.Description())
		b.WriteString("):\n\n")
		b.WriteString(content)
	}
	return b.String()
}

// promptSize is an upper bound of the prompt's length.
func promptSize(files []File) int {
	n := len(MemoryInstruction)
	for _, f := range files {
		n += len(f.Path) + len(f.Content) + 80
	}
	return n
}

// PromptWarning names a file too large for the prompt.
type PromptWarning struct {
	Path  string `json:"path"`
	Chars int    `json:"chars"`
}

// LargeFiles returns the files whose content has more than MaxMemoryChars
// characters (Unicode code points), in order.
func LargeFiles(files []File) []PromptWarning {
	var out []PromptWarning
	for _, f := range files {
		if n := utf8.RuneCountInString(f.Content); n > MaxMemoryChars {
			out = append(out, PromptWarning{Path: f.Path, Chars: n})
		}
	}
	return out
}
