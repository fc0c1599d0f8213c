package assistants

import "path/filepath"

// Format is an MCP configuration file's format.
type Format int

// The formats.
const (
	JSON Format = iota
	TOML
)

// MCPConfig is where an assistant reads the user's MCP servers and how
// an entry looks.
type MCPConfig struct {
	// Path returns the user-level configuration file.
	Path func(Env) string
	// Format is the file's format.
	Format Format
	// Container is the JSON object (or TOML table prefix) holding the
	// servers.
	Container string
	// Typed says an entry carries "type": "stdio".
	Typed bool
}

// claudeMCP is Claude Code's user configuration: .claude.json in
// $CLAUDE_CONFIG_DIR, else in the home.
func claudeMCP(e Env) string {
	if d := e.getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return filepath.Join(d, ".claude.json")
	}
	return filepath.Join(e.Home, ".claude.json")
}

// vscodeUserMCP is VS Code's user-profile mcp.json, where Copilot's agent
// mode reads the user's MCP servers.
func vscodeUserMCP(e Env) string {
	switch e.GOOS {
	case "darwin":
		return filepath.Join(e.Home, "Library", "Application Support", "Code", "User", "mcp.json")
	case "windows":
		if d := e.getenv("APPDATA"); d != "" {
			return filepath.Join(d, "Code", "User", "mcp.json")
		}
		return filepath.Join(e.Home, "AppData", "Roaming", "Code", "User", "mcp.json")
	}
	if d := e.getenv("XDG_CONFIG_HOME"); d != "" {
		return filepath.Join(d, "Code", "User", "mcp.json")
	}
	return filepath.Join(e.Home, ".config", "Code", "User", "mcp.json")
}
