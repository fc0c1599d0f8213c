//go:build unix

package e2e

import (
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/teammem/teammem/testkit/gittest"
)

// allAssistants chooses every target.
const allAssistants = "claude,codex,gemini,cursor,copilot,windsurf"

// runAgentHome runs teammem-agent with args to completion, with a home of
// its own (Gemini CLI's user settings and the detection read it).
func runAgentHome(t *testing.T, home string, args ...string) (int, *proc) {
	t.Helper()
	p := startProcWith(t, func(cmd *exec.Cmd) {
		cmd.Env = append(cmd.Env, "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"))
	}, agentBin, args...)
	p.wait()
	return p.cmd.ProcessState.ExitCode(), p
}

// TestTeamBlockEveryAssistant: a teammate's index line reaches the file of
// every assistant in a checkout without and with a tracked AGENTS.md and
// GEMINI.md of its own (Codex's override carrying AGENTS.md unchanged, a
// side file for Gemini CLI), status shows each in place, git status stays
// empty, and --no-inject gives the checkout back byte for byte.
func TestTeamBlockEveryAssistant(t *testing.T) {
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	aCheckout, _ := gittest.NewCheckout(t, "git@github.com:"+repo+".git")
	aDir, aState := t.TempDir(), t.TempDir()
	write(t, aDir, "deploys.md", "---\nname: deploys\ndescription: how we deploy\ntype: project\n---\nmake deploy\n")
	write(t, aDir, "MEMORY.md", "- [Deploys](deploys.md) — deploy runbook of quince-4417\n")
	if code, p := runAgent(t, srv, aDir, aState, "sync", "--repo-dir", aCheckout); code != 0 {
		t.Fatalf("A's sync exit %d:\n%s", code, p.stderr)
	}

	tracked := map[string]string{
		"AGENTS.md": "# Agents\n\nAlways run `make check` (agents-marker-881).\n",
		"GEMINI.md": "# Gemini\n\nPrefer small commits (gemini-marker-552).\n",
	}
	for _, withTracked := range []bool{false, true} {
		name := map[bool]string{false: "plain", true: "tracked AGENTS.md and GEMINI.md"}[withTracked]
		t.Run(name, func(t *testing.T) {
			co, _ := gittest.NewCheckout(t, "git@github.com:"+repo+".git")
			if withTracked {
				for f, text := range tracked {
					write(t, co, f, text)
					gittest.Run(t, co, "add", f)
				}
				gittest.Run(t, co, "commit", "-q", "-m", "assistant files")
			}
			before := gittest.Tree(t, co)
			home, dir, state := t.TempDir(), t.TempDir(), t.TempDir()
			args := append(runArgs(srv, dir, state), "--repo-dir", co, "--assistants", allAssistants)
			if code, p := runAgentHome(t, home, append([]string{"sync"}, args...)...); code != 0 {
				t.Fatalf("sync exit %d:\n%s\n%s", code, p.stdout, p.stderr)
			}
			want := "- [Deploys](" + dir + "/deploys.md) — deploy runbook of quince-4417"
			code, p := runAgentHome(t, home, append([]string{"status"}, args...)...)
			var st struct {
				TeamBlock []struct{ Checkout, Assistant, File, State, Fix string } `json:"teamBlock"`
			}
			if err := json.Unmarshal([]byte(p.stdout.String()), &st); code != 0 || err != nil {
				t.Fatalf("status exit %d, %v:\n%s", code, err, p.stdout)
			}
			files := map[string]string{}
			for _, b := range st.TeamBlock {
				if b.Checkout == co {
					files[b.Assistant] = b.File
					if b.State != "in place" {
						t.Errorf("%s: %s (%s)", b.Assistant, b.State, b.Fix)
					}
				}
			}
			wantFiles := maps.Clone(assistantFiles)
			if withTracked {
				wantFiles["gemini"] = "GEMINI.teammem.md"
			}
			if !maps.Equal(files, wantFiles) {
				t.Errorf("status files %v, want %v", files, wantFiles)
			}
			for assistant, f := range wantFiles {
				if got := read(co, f); !strings.Contains(got, want) {
					t.Errorf("%s's %s lacks the index line:\n%s", assistant, f, got)
				}
			}
			if withTracked {
				for f, text := range tracked {
					if got := read(co, f); got != text {
						t.Errorf("tracked %s changed: %q", f, got)
					}
				}
				if got := read(co, "AGENTS.override.md"); !strings.Contains(got, tracked["AGENTS.md"]) ||
					strings.Index(got, tracked["AGENTS.md"]) > strings.Index(got, want) {
					t.Errorf("AGENTS.override.md does not carry AGENTS.md before the block:\n%s", got)
				}
				if got := read(co, ".gemini/settings.json"); !strings.Contains(got, `"GEMINI.md", "GEMINI.teammem.md"`) {
					t.Errorf(".gemini/settings.json: %s", got)
				}
			}
			if s := gittest.Run(t, co, "status", "--porcelain", "--untracked-files=all"); s != "" {
				t.Errorf("git status:\n%s", s)
			}
			if code, p := runAgentHome(t, home, append([]string{"sync", "--no-inject"}, args...)...); code != 0 {
				t.Fatalf("sync --no-inject exit %d:\n%s", code, p.stderr)
			}
			if after := gittest.Tree(t, co); !maps.Equal(before, after) {
				t.Errorf("after --no-inject the checkout differs:\nbefore %q\nafter  %q", before, after)
			}
		})
	}
}

// TestAddStoresAssistants: `add --assistants` keeps the choice in
// agent.toml for the checkout, status of the registered checkouts shows
// those assistants, an unknown name is a usage error, and `remove` takes
// the block out of every assistant's file.
func TestAddStoresAssistants(t *testing.T) {
	home := t.TempDir()
	co, _ := gittest.NewCheckout(t, "git@github.com:"+repo+".git")
	if code, p := runAgentHome(t, home, "add", co, "--assistants", "vim"); code != 2 || !strings.Contains(p.stderr.String(), "unknown assistant") {
		t.Errorf("unknown assistant: exit %d\n%s", code, p.stderr)
	}
	if code, p := runAgentHome(t, home, "add", co, "--assistants", "codex,gemini"); code != 0 {
		t.Fatalf("add exit %d:\n%s", code, p.stderr)
	}
	config := read(filepath.Join(home, ".config", "teammem"), "agent.toml")
	if !strings.Contains(config, `assistants = ["codex", "gemini"]`) {
		t.Errorf("agent.toml:\n%s", config)
	}
	code, p := runAgentHome(t, home, "status", "--json")
	if code != 0 || !strings.Contains(p.stdout.String(), `"assistant":"codex"`) || !strings.Contains(p.stdout.String(), `"assistant":"gemini"`) ||
		strings.Contains(p.stdout.String(), `"assistant":"claude"`) {
		t.Errorf("status exit %d:\n%s\n%s", code, p.stdout, p.stderr)
	}
	os.WriteFile(filepath.Join(co, "AGENTS.override.md"), []byte("<!-- teammem:begin -->\nold\n<!-- teammem:end -->\n"), 0o644)
	if code, p := runAgentHome(t, home, "remove", co); code != 0 || !strings.Contains(p.stdout.String(), "took the team memory block out") {
		t.Fatalf("remove exit %d:\n%s\n%s", code, p.stdout, p.stderr)
	}
	if got := read(co, "AGENTS.override.md"); got != absent {
		t.Errorf("after remove: %q", got)
	}
}
