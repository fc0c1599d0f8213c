package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestEveryCommandHasHelp runs `CMD --help` and `help CMD` for every
// command: both exit 0 and print the same usage, which starts with
// "Usage: teammem-agent CMD".
func TestEveryCommandHasHelp(t *testing.T) {
	for name := range commands {
		t.Run(name, func(t *testing.T) {
			a := cli(t, t.Context(), nil, name, "--help")
			b := cli(t, t.Context(), nil, "help", name)
			if a.code != 0 || !strings.HasPrefix(a.stdout, "Usage: teammem-agent "+name) || a.stderr != "" {
				t.Errorf("%s --help: exit %d, stdout %q, stderr %q", name, a.code, a.stdout, a.stderr)
			}
			if b != a {
				t.Errorf("help %s differs from %s --help: %+v", name, name, b)
			}
		})
	}
	if r := cli(t, t.Context(), nil, "help", "nosuch"); r.code != 2 {
		t.Errorf("help nosuch: exit %d", r.code)
	}
}

func TestCompletionScripts(t *testing.T) {
	for _, sh := range []string{"bash", "zsh", "fish"} {
		r := cli(t, t.Context(), nil, "completion", sh)
		if r.code != 0 || !strings.Contains(r.stdout, "restore") || !strings.Contains(r.stdout, "token-file") {
			t.Errorf("completion %s: exit %d, stderr %q, script:\n%s", sh, r.code, r.stderr, r.stdout)
		}
		if path, err := exec.LookPath(sh); err == nil {
			script := filepath.Join(t.TempDir(), "c")
			os.WriteFile(script, []byte(r.stdout), 0o600)
			if out, err := exec.Command(path, "-n", script).CombinedOutput(); err != nil {
				t.Errorf("%s -n: %v\n%s", sh, err, out)
			}
		}
	}
	if r := cli(t, t.Context(), nil, "completion", "tcsh"); r.code != 2 {
		t.Errorf("completion tcsh: exit %d", r.code)
	}
}

// TestBashCompletion sources the bash script and asks it, as bash would,
// for the words after a prefix.
func TestBashCompletion(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	script := filepath.Join(t.TempDir(), "teammem-agent.bash")
	os.WriteFile(script, []byte(cli(t, t.Context(), nil, "completion", "bash").stdout), 0o600)
	complete := func(words ...string) []string {
		t.Helper()
		line := `source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _teammem_agent; printf '%s\n' "${COMPREPLY[@]}"`
		out, err := exec.Command(bash, append([]string{"-c", line, "bash", script}, words...)...).Output()
		if err != nil {
			t.Fatalf("complete %q: %v", words, err)
		}
		return strings.Fields(string(out))
	}
	if got := complete("teammem-agent", "res"); !slices.Equal(got, []string{"restore"}) {
		t.Errorf("teammem-agent res<TAB> = %q", got)
	}
	if got := complete("teammem-agent", "log", "--li"); !slices.Equal(got, []string{"--limit"}) {
		t.Errorf("teammem-agent log --li<TAB> = %q", got)
	}
	if got := complete("teammem-agent", "memory", "p"); !slices.Equal(slices.Sorted(slices.Values(got)), []string{"paths", "prompt"}) {
		t.Errorf("teammem-agent memory p<TAB> = %q", got)
	}
}
