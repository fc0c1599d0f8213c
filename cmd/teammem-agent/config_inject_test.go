package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/teammem/teammem/client/assistants"
	"github.com/teammem/teammem/client/userconfig"
)

func TestConfigInjectFalseTurnsNoInjectOn(t *testing.T) {
	for _, tt := range []struct {
		file string
		want bool
	}{
		{"", false},
		{"inject = true\n", false},
		{"inject = false\n", true},
	} {
		path := filepath.Join(t.TempDir(), "agent.toml")
		if tt.file != "" {
			os.WriteFile(path, []byte(tt.file), 0o600)
		}
		c := commonFlags{config: path}
		if _, err := c.applyConfig(&cliEnv{Getenv: func(string) string { return "" }}); err != nil {
			t.Fatal(err)
		}
		if c.noInject != tt.want {
			t.Errorf("config %q: noInject %v, want %v", tt.file, c.noInject, tt.want)
		}
	}
}

// TestChooseTargets: --assistants wins, then the checkout's assistants in
// agent.toml, then the file's global list, then detection in the home; a
// bad name in the file is an error naming it.
func TestChooseTargets(t *testing.T) {
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, ".gemini"), 0o755)
	co := t.TempDir()
	e := &cliEnv{Home: home, Cwd: co, Getenv: func(string) string { return "" }}
	names := func(c commonFlags, uc userconfig.Config) string {
		t.Helper()
		ts, err := chooseTargets(e, c, uc)
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(assistants.Names(ts), ",")
	}
	own := userconfig.Config{Assistants: []string{"cursor"}, Checkouts: []userconfig.Checkout{{Path: co, Assistants: []string{"codex", "claude"}}}}
	for _, tt := range []struct {
		flag string
		uc   userconfig.Config
		want string
	}{
		{"windsurf,claude", own, "windsurf,claude"},
		{"", own, "codex,claude"},
		{"", userconfig.Config{Assistants: []string{"cursor"}}, "cursor"},
		{"", userconfig.Config{}, "claude,gemini"},
	} {
		if got := names(commonFlags{assistants: tt.flag}, tt.uc); got != tt.want {
			t.Errorf("flag %q, config %+v: %s, want %s", tt.flag, tt.uc, got, tt.want)
		}
	}
	if _, err := chooseTargets(e, commonFlags{}, userconfig.Config{Assistants: []string{"vim"}}); err == nil || !strings.Contains(err.Error(), `"vim"`) {
		t.Errorf("a bad name in agent.toml: %v", err)
	}
	if _, err := chooseTargets(e, commonFlags{assistants: "claude,,nano"}, userconfig.Config{}); err == nil {
		t.Error("a bad --assistants passed")
	}
}

// TestTargetsOf: checkouts of one team folder registered with different
// assistants keep each their own; a checkout neither lists takes the first
// registration's; a single registration's choice is used as it is, without
// listing its checkouts on every update.
func TestTargetsOf(t *testing.T) {
	listed := 0
	list := func(roots ...string) func() ([]string, error) {
		return func() ([]string, error) { listed++; return roots, nil }
	}
	only := func(ts ...assistants.Assistant) func(string) []assistants.Assistant {
		return func(string) []assistants.Assistant { return ts }
	}
	two := targetsOf([]func() ([]string, error){list("/a"), list("/b", "/b/wt")},
		[]func(string) []assistants.Assistant{only(assistants.Claude), only(assistants.Codex)})
	for co, want := range map[string]string{"/a": "claude", "/b": "codex", "/b/wt": "codex", "/c": "claude"} {
		if got := two(co); len(got) != 1 || got[0].Name != want {
			t.Errorf("targets of %s: %v, want %s", co, got, want)
		}
	}
	listed = 0
	one := targetsOf([]func() ([]string, error){list("/a")}, []func(string) []assistants.Assistant{only(assistants.Gemini)})
	if got := one("/a"); len(got) != 1 || got[0].Name != "gemini" || listed != 0 {
		t.Errorf("one registration: %v after listing %d times; want gemini without listing", got, listed)
	}
}
