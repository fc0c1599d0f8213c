package mcpinstall

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/teammem/teammem/client/assistants"
)

const agent = "/usr/local/bin/teammem-agent"

func testEnv(t *testing.T) assistants.Env {
	home := t.TempDir()
	return assistants.Env{Home: home, GOOS: "linux", Getenv: func(string) string { return "" }}
}

// TestInstallEveryClient installs into a missing file, a file with other
// settings, and again (no change); uninstall gives the other settings back
// byte for byte.
func TestInstallEveryClient(t *testing.T) {
	for _, name := range assistants.Names(assistants.All) {
		t.Run(name, func(t *testing.T) {
			e := testEnv(t)
			c, err := Plan(name, e, true, agent, "mcp")
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(c.Path, e.Home) || !c.Changed() || c.exists {
				t.Fatalf("plan into a missing file: %+v", c)
			}
			if err := Apply(c); err != nil {
				t.Fatal(err)
			}
			checkEntry(t, name, c.Path)
			if fi, _ := os.Stat(c.Path); fi.Mode().Perm() != 0o600 {
				t.Errorf("a new file is %v; want 0600", fi.Mode().Perm())
			}
			again, err := Plan(name, e, true, agent, "mcp")
			if err != nil || again.Changed() {
				t.Errorf("installing twice changes the file: %v\n%s", err, again.Diff())
			}

			other := otherSettings(name)
			os.WriteFile(c.Path, []byte(other), 0o644)
			os.Chmod(c.Path, 0o644)
			c, err = Plan(name, e, true, agent, "mcp")
			if err != nil {
				t.Fatal(err)
			}
			if d := c.Diff(); strings.Count(d, "\n-") > 1 || !strings.Contains(d, "+") {
				t.Errorf("diff removes lines of the user's settings:\n%s", d)
			}
			Apply(c)
			checkEntry(t, name, c.Path)
			if fi, _ := os.Stat(c.Path); fi.Mode().Perm() != 0o644 {
				t.Errorf("the edit changed the file's mode to %v", fi.Mode().Perm())
			}
			u, err := Plan(name, e, false, "")
			if err != nil {
				t.Fatal(err)
			}
			Apply(u)
			if got, _ := os.ReadFile(c.Path); !sameSettings(string(got), other) {
				t.Errorf("after uninstall:\n%s\nwant the user's settings back:\n%s", got, other)
			}
		})
	}
}

// otherSettings is a file of the client's with the user's own servers
// and settings, formatted the user's way.
func otherSettings(name string) string {
	switch name {
	case "codex":
		return "model = \"o4\" # mine\n\n[mcp_servers.docs]\ncommand = \"docs-mcp\"\n\n[profiles.fast]\nmodel = \"mini\"\n"
	case "copilot":
		return "{\n\t\"servers\": {\n\t\t\"gh\": {\"type\": \"http\", \"url\": \"https://x/mcp\"}\n\t},\n\t\"inputs\": []\n}\n"
	}
	return "{\n    \"theme\":   \"dark\",\n    \"mcpServers\": {\n        \"docs\": { \"command\": \"docs-mcp\" }\n    },\n    \"tips\": [1, 2]\n}"
}

// sameSettings compares after uninstall: the bytes, but for an emptied
// TOML tail's blank line.
func sameSettings(got, want string) bool {
	return strings.TrimRight(got, "\n") == strings.TrimRight(want, "\n")
}

func checkEntry(t *testing.T, name, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	a, _ := assistants.Lookup(name)
	if a.MCP.Format == assistants.TOML {
		_, err = toml.Decode(string(data), &doc)
	} else {
		err = json.Unmarshal(data, &doc)
	}
	if err != nil {
		t.Fatalf("%s after install: %v\n%s", path, err, data)
	}
	servers, _ := doc[a.MCP.Container].(map[string]any)
	entry, _ := servers[ServerName].(map[string]any)
	if entry["command"] != agent || len(entry["args"].([]any)) != 1 {
		t.Fatalf("%s: entry %v\n%s", path, entry, data)
	}
	if strings.Contains(string(data), "token") {
		t.Errorf("%s holds a token field:\n%s", path, data)
	}
}

func TestEditRefusesWhatItCannotKeep(t *testing.T) {
	e := testEnv(t)
	for name, content := range map[string]string{
		"claude": "{\"mcpServers\": [1]}",
		"cursor": "// comment\n{}",
		"gemini": "[1, 2]",
		"codex":  "mcp_servers = 3\n",
	} {
		c, _ := Plan(name, e, true, agent, "mcp")
		os.MkdirAll(filepath.Dir(c.Path), 0o700)
		os.WriteFile(c.Path, []byte(content), 0o600)
		if _, err := Plan(name, e, true, agent, "mcp"); err == nil {
			t.Errorf("%s: %q was edited; want a refusal", name, content)
		}
	}
	if _, err := Plan("vim", e, true, agent); err == nil {
		t.Error("an unknown client was accepted")
	}
}

func TestSetJSONKeepsBytes(t *testing.T) {
	doc := "{\"a\":1,\"mcpServers\":{\"x\":{\"command\":\"y\"},\"teammem\":{\"command\":\"old\"}},\"z\":[true]}"
	got, err := setJSON([]byte(doc), "mcpServers", "teammem", map[string]string{"command": "new"})
	if err != nil {
		t.Fatal(err)
	}
	want := "{\"a\":1,\"mcpServers\":{\"x\":{\"command\":\"y\"},\"teammem\":{\n  \"command\": \"new\"\n}},\"z\":[true]}"
	if string(got) != want {
		t.Errorf("replace:\n%s\nwant\n%s", got, want)
	}
	got, _ = setJSON(got, "mcpServers", "teammem", nil)
	if want := "{\"a\":1,\"mcpServers\":{\"x\":{\"command\":\"y\"}},\"z\":[true]}"; string(got) != want {
		t.Errorf("remove:\n%s\nwant\n%s", got, want)
	}
	first := "{\"mcpServers\": {\"teammem\": {}, \"x\": 1}}"
	got, _ = setJSON([]byte(first), "mcpServers", "teammem", nil)
	if want := "{\"mcpServers\": {\"x\": 1}}"; string(got) != want {
		t.Errorf("remove the first member: %s, want %s", got, want)
	}
}

// TestInstalled: every client's entry is seen once installed (whatever
// command it runs), not before nor after uninstall, and a file of other
// servers alone is not it.
func TestInstalled(t *testing.T) {
	for _, name := range assistants.Names(assistants.All) {
		e := testEnv(t)
		if Installed(name, e) {
			t.Errorf("%s: installed in an empty home", name)
		}
		c, _ := Plan(name, e, true, "/opt/other/teammem-agent", "mcp")
		if err := Apply(c); err != nil {
			t.Fatal(err)
		}
		if !Installed(name, e) {
			t.Errorf("%s: not seen after install", name)
		}
		c, _ = Plan(name, e, false, "")
		Apply(c)
		if Installed(name, e) {
			t.Errorf("%s: still seen after uninstall", name)
		}
	}
}
