// Package assistants is the one table of the AI coding assistants teammem
// serves. For each it holds the name --assistants, agent.toml and
// `mcp install --client` use, the instruction file the assistant reads at
// the start of every session (which carries the team memory block) with
// that file's rules, the per-user folder that shows the assistant runs on
// this machine, and where and in which format its user-level MCP
// configuration lives. The block (client/teamblock) and MCP install
// (client/mcpinstall) both read it; nothing else names an assistant.
package assistants

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// Assistant is one assistant and the files teammem keeps for it.
type Assistant struct {
	// Name is how --assistants, agent.toml and mcp install name it.
	Name string
	// Product is the assistant's name for people.
	Product string

	// File is the instruction file that carries the block, a slash path
	// from the checkout's top. Every instruction file keeps the same
	// rules: a tracked file is never edited, a file the agent creates is
	// kept out of git by the repository's info/exclude, the text outside
	// the markers stays byte for byte, a write happens only when the text
	// changes, and the block is cut to the assistant's own size budget.
	File string
	// Frontmatter heads a file the agent creates; a file holding only it
	// and the block is the agent's, deleted when the block is taken out.
	Frontmatter string
	// Budget is the most the file may hold, in bytes, or in characters
	// when Runes is set; 0: no limit of the file's own (the index keeps
	// to MEMORY.md's budget in every file). A block that does not fit
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
	// SideSettings is the workspace settings file, a slash path from the
	// checkout's top, whose setting must name Side; UserSettings is the
	// user's own, whose setting holds where the workspace has none.
	SideSettings string
	UserSettings func(Env) string
	// HashRefs are the kinds of "#kind:" references the assistant follows
	// in its instruction file ("file" for "#file:'path'"), neutralised in
	// the block beyond the @ imports every block is guarded against.
	HashRefs []string

	// MCP is the assistant's user-level MCP configuration.
	MCP MCPConfig
	// runs reports whether the user's home shows the assistant ran on this
	// machine (Detect); nil: always chosen.
	runs func(Env) bool
}

// The assistants, in the order status shows them.
var (
	// Claude Code loads CLAUDE.local.md at the checkout's top, unasked, on
	// the first turn, in every version; git never shares it.
	Claude = Assistant{Name: "claude", Product: "Claude Code", File: "CLAUDE.local.md",
		MCP: MCPConfig{Path: claudeMCP, Container: "mcpServers", Typed: true}}
	// Codex reads AGENTS.override.md instead of AGENTS.md in a folder,
	// from the git root down to the working folder, up to
	// project_doc_max_bytes (32 KiB) in all.
	Codex = Assistant{Name: "codex", Product: "Codex CLI", File: "AGENTS.override.md", Carry: "AGENTS.md",
		Budget: 32 * 1024, AtEnd: true,
		MCP:  MCPConfig{Path: inCodexHome("config.toml"), Container: "mcp_servers", Format: TOML},
		runs: dirExists(codexHome)}
	// Gemini CLI concatenates GEMINI.md (and every name context.fileName
	// adds) from the working folder up to the git root. It reads the
	// workspace's .gemini/settings.json only in a folder the user trusts;
	// the user's settings file holds the MCP servers too.
	Gemini = Assistant{Name: "gemini", Product: "Gemini CLI", File: "GEMINI.md", Side: "GEMINI.teammem.md",
		SideSettings: ".gemini/settings.json", UserSettings: geminiUserSettings,
		MCP:  MCPConfig{Path: geminiUserSettings, Container: "mcpServers"},
		runs: dirExists(inHome(".gemini"))}
	// Cursor applies a project rule with alwaysApply: true to every
	// request.
	Cursor = Assistant{Name: "cursor", Product: "Cursor", File: ".cursor/rules/teammem.mdc",
		Frontmatter: "---\ndescription: Team memory of this repository, kept by teammem\nglobs:\nalwaysApply: true\n---\n",
		MCP:         MCPConfig{Path: inHome(".cursor", "mcp.json"), Container: "mcpServers"},
		runs:        dirExists(inHome(".cursor"))}
	// GitHub Copilot applies an instructions file whose applyTo is "**"
	// to every request in the workspace; Visual Studio loads the file a
	// line of "#file:'path'" names.
	Copilot = Assistant{Name: "copilot", Product: "GitHub Copilot", File: ".github/instructions/teammem.instructions.md",
		Frontmatter: "---\napplyTo: \"**\"\n---\n", HashRefs: []string{"file", "tool", "sym", "prompt"},
		MCP:  MCPConfig{Path: vscodeUserMCP, Container: "servers", Typed: true},
		runs: copilotRuns}
	// Windsurf applies a workspace rule with trigger: always_on; a rule
	// file holds at most 12,000 characters.
	Windsurf = Assistant{Name: "windsurf", Product: "Windsurf", File: ".windsurf/rules/teammem.md",
		Frontmatter: "---\ntrigger: always_on\n---\n", Budget: 12000, Runes: true,
		MCP:  MCPConfig{Path: inHome(".codeium", "windsurf", "mcp_config.json"), Container: "mcpServers"},
		runs: dirExists(inHome(".codeium", "windsurf"))}
)

// All lists every assistant.
var All = []Assistant{Claude, Codex, Gemini, Cursor, Copilot, Windsurf}

// Lookup finds the assistant named name (in lower case, as Name).
func Lookup(name string) (Assistant, bool) {
	i := slices.IndexFunc(All, func(a Assistant) bool { return a.Name == name })
	if i < 0 {
		return Assistant{}, false
	}
	return All[i], true
}

// Parse reads a comma-separated list of names ("claude,codex"), in any
// case, each kept once; an unknown name is an error naming the known ones.
func Parse(list string) ([]Assistant, error) {
	var out []Assistant
	for _, name := range strings.Split(list, ",") {
		name = strings.ToLower(strings.TrimSpace(name))
		if name == "" {
			continue
		}
		a, ok := Lookup(name)
		if !ok {
			return nil, fmt.Errorf("unknown assistant %q: want a comma-separated list of %s", name, strings.Join(Names(All), ", "))
		}
		if !slices.ContainsFunc(out, func(b Assistant) bool { return b.Name == name }) {
			out = append(out, a)
		}
	}
	return out, nil
}

// Names returns the names of as.
func Names(as []Assistant) []string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = a.Name
	}
	return out
}

// Size measures text against the instruction file's budget.
func (a Assistant) Size(s string) int {
	if a.Runes {
		return utf8.RuneCountInString(s)
	}
	return len(s)
}

// BudgetUnit names the budget's unit.
func (a Assistant) BudgetUnit() string {
	if a.Runes {
		return "characters"
	}
	return "bytes"
}
