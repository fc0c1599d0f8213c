package teamblock

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"
)

// Target is one assistant's instruction file in a checkout: the file that
// assistant reads at the start of every session, which carries the block.
// Every target keeps the same rules: a tracked file is never edited, a
// file the agent creates is kept out of git by the repository's
// info/exclude, the text outside the markers stays byte for byte, a write
// happens only when the text changes, and the block is cut to the
// assistant's own size budget.
type Target struct {
	// Name is how --assistants and agent.toml name it.
	Name string
	// Assistant is the product, for people.
	Assistant string
	// File is the file's path from the checkout's top, with slashes.
	File string
	// Frontmatter heads a file the agent creates; a file holding only it
	// and the block is the agent's, deleted when the block is taken out.
	Frontmatter string
	// Budget is the most the file may hold, in bytes, or in characters
	// when Runes is set; 0: no limit of the file's own (the index keeps
	// to MEMORY.md's budget in every target). A block that does not fit
	// loses index lines from its end and says so.
	Budget int
	Runes  bool
	// AtEnd puts a new block at the end of the file instead of the top: the
	// text the assistant read before keeps its place within the budget.
	AtEnd bool
	// Carry names the file that File replaces for the assistant in the
	// same folder (Codex reads AGENTS.override.md instead of AGENTS.md):
	// a file the agent writes carries that file's text unchanged, kept in
	// step with its edits, so that the assistant reads what it read before
	// and the block.
	Carry string
	// Side is a file of the agent's own that carries the block when File
	// is tracked, for an assistant that reads several files a setting
	// names (Gemini CLI's context.fileName); "" when there is none.
	Side string
	// guard neutralises the assistant's own reference syntax beyond the @
	// imports every block is guarded against; nil: nothing more.
	guard func(string) string
}

// The targets, in the order status shows them.
var (
	Claude = Target{Name: "claude", Assistant: "Claude Code", File: LocalMdName}
	// Codex reads AGENTS.override.md instead of AGENTS.md in a folder,
	// from the git root down to the working folder, up to
	// project_doc_max_bytes (32 KiB) in all.
	Codex = Target{Name: "codex", Assistant: "Codex CLI", File: "AGENTS.override.md", Carry: "AGENTS.md",
		Budget: 32 * 1024, AtEnd: true}
	// Gemini CLI concatenates GEMINI.md (and every name context.fileName
	// adds) from the working folder up to the git root.
	Gemini = Target{Name: "gemini", Assistant: "Gemini CLI", File: "GEMINI.md", Side: "GEMINI.teammem.md"}
	// Cursor applies a project rule with alwaysApply: true to every
	// request.
	Cursor = Target{Name: "cursor", Assistant: "Cursor", File: ".cursor/rules/teammem.mdc",
		Frontmatter: "---\ndescription: Team memory of this repository, kept by teammem\nglobs:\nalwaysApply: true\n---\n"}
	// GitHub Copilot applies an instructions file whose applyTo is "**"
	// to every request in the workspace.
	Copilot = Target{Name: "copilot", Assistant: "GitHub Copilot", File: ".github/instructions/teammem.instructions.md",
		Frontmatter: "---\napplyTo: \"**\"\n---\n", guard: guardHashRefs}
	// Windsurf applies a workspace rule with trigger: always_on; a rule
	// file holds at most 12,000 characters.
	Windsurf = Target{Name: "windsurf", Assistant: "Windsurf", File: ".windsurf/rules/teammem.md",
		Frontmatter: "---\ntrigger: always_on\n---\n", Budget: 12000, Runes: true}
)

// Targets lists every target.
var Targets = []Target{Claude, Codex, Gemini, Cursor, Copilot, Windsurf}

// ParseTargets reads a comma-separated list of target names ("claude,codex");
// an unknown name is an error naming the known ones.
func ParseTargets(list string) ([]Target, error) {
	var out []Target
	for _, name := range strings.Split(list, ",") {
		name = strings.ToLower(strings.TrimSpace(name))
		if name == "" {
			continue
		}
		i := slices.IndexFunc(Targets, func(t Target) bool { return t.Name == name })
		if i < 0 {
			return nil, fmt.Errorf("unknown assistant %q: want a comma-separated list of %s", name, strings.Join(TargetNames(Targets), ", "))
		}
		if !slices.ContainsFunc(out, func(t Target) bool { return t.Name == name }) {
			out = append(out, Targets[i])
		}
	}
	return out, nil
}

// TargetNames returns the names of ts.
func TargetNames(ts []Target) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Name
	}
	return out
}

// Detect chooses the targets when none are configured: Claude Code
// always (the block's first home), and every other assistant whose own
// per-user folder exists in home — the folder the assistant creates on its
// first run (~/.codex or $CODEX_HOME, ~/.gemini, ~/.cursor,
// ~/.codeium/windsurf, ~/.copilot or VS Code's Copilot Chat extension).
// It looks at the user's home only, never at the checkout: a file
// committed by a teammate says what the team uses, not what this user
// runs. A wrong guess costs one untracked, git-excluded file.
func Detect(home string, getenv func(string) string) []Target {
	out := []Target{Claude}
	if home == "" {
		return out
	}
	isDir := func(p string) bool { fi, err := os.Stat(p); return err == nil && fi.IsDir() }
	codexHome := filepath.Join(home, ".codex")
	if getenv != nil && getenv("CODEX_HOME") != "" {
		codexHome = getenv("CODEX_HOME")
	}
	copilot := isDir(filepath.Join(home, ".copilot"))
	if m, _ := filepath.Glob(filepath.Join(home, ".vscode", "extensions", "github.copilot*")); len(m) > 0 {
		copilot = true
	}
	for _, c := range []struct {
		t  Target
		ok bool
	}{
		{Codex, isDir(codexHome)},
		{Gemini, isDir(filepath.Join(home, ".gemini"))},
		{Cursor, isDir(filepath.Join(home, ".cursor"))},
		{Copilot, copilot},
		{Windsurf, isDir(filepath.Join(home, ".codeium", "windsurf"))},
	} {
		if c.ok {
			out = append(out, c.t)
		}
	}
	return out
}

// size measures text against the target's budget.
func (t Target) size(s string) int {
	if t.Runes {
		return utf8.RuneCountInString(s)
	}
	return len(s)
}

// budgetUnit names the budget's unit.
func (t Target) budgetUnit() string {
	if t.Runes {
		return "characters"
	}
	return "bytes"
}

// guardHashRefs neutralises the "#file:", "#tool:", "#sym:" and "#prompt:"
// references of GitHub Copilot's instruction files (Visual Studio loads the file a line
// of "#file:'path'" names): a backslash before the "#" (which Markdown
// shows as "#") unless one is there already.
func guardHashRefs(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '#' && (i == 0 || s[i-1] != '\\') {
			rest := strings.ToLower(s[i+1:])
			if strings.HasPrefix(rest, "file:") || strings.HasPrefix(rest, "tool:") || strings.HasPrefix(rest, "sym:") || strings.HasPrefix(rest, "prompt:") {
				b.WriteByte('\\')
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
