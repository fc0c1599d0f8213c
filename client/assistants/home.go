package assistants

import (
	"os"
	"path/filepath"
)

// Env is where the user's files are.
type Env struct {
	Home   string
	Getenv func(string) string
	GOOS   string
}

// getenv is e.Getenv, "" for every name when it is nil.
func (e Env) getenv(name string) string {
	if e.Getenv == nil {
		return ""
	}
	return e.Getenv(name)
}

// Detect chooses the assistants when none are configured: Claude Code
// always (the block's first home), and every other assistant whose own
// per-user folder exists in the home — the folder the assistant creates
// on its first run (~/.codex or $CODEX_HOME, ~/.gemini, ~/.cursor,
// ~/.codeium/windsurf, ~/.copilot or VS Code's Copilot Chat extension).
// It looks at the user's home only, never at a checkout: a file committed
// by a teammate says what the team uses, not what this user runs. A wrong
// guess costs one untracked, git-excluded file.
func Detect(e Env) []Assistant {
	var out []Assistant
	for _, a := range All {
		if a.runs == nil || e.Home != "" && a.runs(e) {
			out = append(out, a)
		}
	}
	return out
}

// inHome is the path of parts below the home.
func inHome(parts ...string) func(Env) string {
	return func(e Env) string { return filepath.Join(append([]string{e.Home}, parts...)...) }
}

// dirExists reports whether the folder at path is one.
func dirExists(path func(Env) string) func(Env) bool {
	return func(e Env) bool {
		fi, err := os.Stat(path(e))
		return err == nil && fi.IsDir()
	}
}

// codexHome is Codex CLI's folder: $CODEX_HOME, else ~/.codex.
func codexHome(e Env) string {
	if d := e.getenv("CODEX_HOME"); d != "" {
		return d
	}
	return filepath.Join(e.Home, ".codex")
}

// inCodexHome is the path of name in Codex CLI's folder.
func inCodexHome(name string) func(Env) string {
	return func(e Env) string { return filepath.Join(codexHome(e), name) }
}

// geminiUserSettings is Gemini CLI's user settings file.
var geminiUserSettings = inHome(".gemini", "settings.json")

// copilotRuns reports whether GitHub Copilot's CLI folder (~/.copilot) or
// VS Code's Copilot extension is there.
func copilotRuns(e Env) bool {
	if dirExists(inHome(".copilot"))(e) {
		return true
	}
	m, _ := filepath.Glob(filepath.Join(e.Home, ".vscode", "extensions", "github.copilot*"))
	return len(m) > 0
}
