package assistants

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	as, err := Parse(" codex, Claude,codex ,")
	if err != nil || strings.Join(Names(as), ",") != "codex,claude" {
		t.Errorf("Parse = %v, %v", Names(as), err)
	}
	if _, err := Parse("claude,vim"); err == nil || !strings.Contains(err.Error(), `"vim"`) || !strings.Contains(err.Error(), strings.Join(Names(All), ", ")) {
		t.Errorf("unknown name: %v", err)
	}
	if as, err := Parse(" , "); err != nil || len(as) != 0 {
		t.Errorf("empty list: %v, %v", Names(as), err)
	}
}

// TestTableIsConsistent: every name is lower case and unique (Parse
// lowers what it reads), every assistant has an instruction file of its
// own, and an MCP configuration below the home.
func TestTableIsConsistent(t *testing.T) {
	e := Env{Home: t.TempDir(), GOOS: "linux"}
	names, files := map[string]bool{}, map[string]bool{}
	for _, a := range All {
		if a.Name != strings.ToLower(a.Name) || names[a.Name] || a.Product == "" {
			t.Errorf("%q: want a unique lower-case name and a product name", a.Name)
		}
		if a.File == "" || files[a.File] {
			t.Errorf("%s: instruction file %q is missing or shared", a.Name, a.File)
		}
		names[a.Name], files[a.File] = true, true
		if p := a.MCP.Path(e); !strings.HasPrefix(p, e.Home+string(filepath.Separator)) || a.MCP.Container == "" {
			t.Errorf("%s: MCP configuration %q (container %q)", a.Name, p, a.MCP.Container)
		}
		if got, ok := Lookup(a.Name); !ok || got.File != a.File {
			t.Errorf("Lookup(%q) = %v, %v", a.Name, got.Name, ok)
		}
	}
}

func TestDetect(t *testing.T) {
	home := t.TempDir()
	none := func(string) string { return "" }
	if got := Names(Detect(Env{Home: home, Getenv: none})); strings.Join(got, ",") != "claude" {
		t.Errorf("empty home: %v", got)
	}
	if got := Names(Detect(Env{})); strings.Join(got, ",") != "claude" {
		t.Errorf("no home: %v", got)
	}
	for _, d := range []string{".codex", ".gemini", ".codeium/windsurf"} {
		os.MkdirAll(filepath.Join(home, d), 0o755)
	}
	os.WriteFile(filepath.Join(home, ".cursor"), nil, 0o644) // a file is not the folder
	if got := Names(Detect(Env{Home: home, Getenv: none})); strings.Join(got, ",") != "claude,codex,gemini,windsurf" {
		t.Errorf("detected %v", got)
	}
	// $CODEX_HOME replaces ~/.codex; VS Code's Copilot extension shows
	// Copilot.
	os.MkdirAll(filepath.Join(home, ".vscode", "extensions", "github.copilot-chat-0.30.0"), 0o755)
	elsewhere := filepath.Join(t.TempDir(), "missing")
	env := func(k string) string {
		if k == "CODEX_HOME" {
			return elsewhere
		}
		return ""
	}
	if got := Names(Detect(Env{Home: home, Getenv: env})); strings.Join(got, ",") != "claude,gemini,copilot,windsurf" {
		t.Errorf("with CODEX_HOME and the extension: %v", got)
	}
}

// TestMCPPaths: the variables each assistant reads move its configuration.
func TestMCPPaths(t *testing.T) {
	vars := map[string]string{"CLAUDE_CONFIG_DIR": "/c", "CODEX_HOME": "/x", "XDG_CONFIG_HOME": "/cfg", "APPDATA": `/appdata`}
	e := Env{Home: "/home/u", GOOS: "linux", Getenv: func(k string) string { return vars[k] }}
	for a, want := range map[string]string{
		Claude.Name:   filepath.Join("/c", ".claude.json"),
		Codex.Name:    filepath.Join("/x", "config.toml"),
		Copilot.Name:  filepath.Join("/cfg", "Code", "User", "mcp.json"),
		Gemini.Name:   filepath.Join("/home/u", ".gemini", "settings.json"),
		Windsurf.Name: filepath.Join("/home/u", ".codeium", "windsurf", "mcp_config.json"),
	} {
		if as, _ := Lookup(a); as.MCP.Path(e) != want {
			t.Errorf("%s: %s, want %s", a, as.MCP.Path(e), want)
		}
	}
	e.GOOS = "darwin"
	if got := Copilot.MCP.Path(e); got != filepath.Join("/home/u", "Library", "Application Support", "Code", "User", "mcp.json") {
		t.Errorf("copilot on darwin: %s", got)
	}
	e.GOOS = "windows"
	if got := Copilot.MCP.Path(e); got != filepath.Join("/appdata", "Code", "User", "mcp.json") {
		t.Errorf("copilot on windows: %s", got)
	}
}
