package agent

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/teammem/teammem/client/assistants"
	"github.com/teammem/teammem/testkit/gittest"
)

// TestBlockInputsOutsideTheFolder: the blocks follow what they depend on
// outside the team folder without a sync: the configuration choosing the
// assistants (a new one gets its file, one taken off loses it), an edit
// of the AGENTS.md Codex's file carries, and a commit that brings back a
// file a topic names. Nothing changed, nothing is done.
func TestBlockInputsOutsideTheFolder(t *testing.T) {
	main, _ := gittest.NewCheckout(t, "")
	commit := func(name, text string) {
		t.Helper()
		writeTree(t, main, map[string]string{name: text})
		gittest.Run(t, main, "add", name)
		gittest.Run(t, main, "commit", "-q", "-m", name)
	}
	commit("AGENTS.md", "# Agents\n\nUse tabs.\n")
	confDir := t.TempDir()
	config := filepath.Join(confDir, "agent.toml")
	choose := func(names string) { writeTree(t, confDir, map[string]string{"agent.toml": names}) }
	choose("claude")
	targets := func(string) []assistants.Assistant {
		data, _ := os.ReadFile(config)
		ts, err := assistants.Parse(strings.TrimSpace(string(data)))
		if err != nil {
			t.Fatal(err)
		}
		return ts
	}
	server := map[string]string{
		"MEMORY.md":  "- [Deploys](deploys.md) — deploy runbook\n",
		"deploys.md": "Deploys go through `scripts/release.sh`.\n",
	}
	r := newRig(t, server, nil, func(c *Config) {
		c.Block = BlockConfig{Checkouts: StaticCheckouts(main), Targets: targets, Watch: []string{config}}
	})
	r.engine.local.watched(true)
	r.sync(t)
	r.sync(t) // the files the first sync wrote are read once more
	override := filepath.Join(main, assistants.Codex.File)
	b := r.engine.blockWriter()
	if b.inputsChanged() {
		t.Fatal("inputs changed with nothing done")
	}
	renders := b.renders
	r.engine.republish(context.Background())
	if b.renders != renders {
		t.Error("a republish with nothing changed rendered the block")
	}

	choose("claude,codex")
	if !b.inputsChanged() {
		t.Fatal("a change of the configuration is not seen")
	}
	r.engine.republish(context.Background())
	if got := readFile(t, override); !strings.Contains(got, "Use tabs.") || !strings.Contains(got, "deploy runbook") {
		t.Fatalf("codex chosen: AGENTS.override.md is\n%s", got)
	}

	commit("AGENTS.md", "# Agents\n\nUse spaces.\n")
	if !b.inputsChanged() {
		t.Fatal("a commit of AGENTS.md is not seen")
	}
	r.engine.republish(context.Background())
	if got := readFile(t, override); !strings.Contains(got, "Use spaces.") || strings.Contains(got, "Use tabs.") {
		t.Errorf("after AGENTS.md changed, AGENTS.override.md is\n%s", got)
	}
	if !strings.Contains(readFile(t, override), "⚠ stale: `scripts/release.sh`") {
		t.Fatalf("no stale warning:\n%s", readFile(t, override))
	}

	commit("scripts/release.sh", "#!/bin/sh\n")
	if !b.inputsChanged() {
		t.Fatal("a commit is not seen")
	}
	r.engine.republish(context.Background())
	if got := readFile(t, filepath.Join(main, assistants.Claude.File)); strings.Contains(got, "⚠") || !strings.Contains(got, "deploy runbook") {
		t.Errorf("after the commit that adds the file, the block is\n%s", got)
	}

	choose("claude")
	r.engine.republish(context.Background())
	if _, err := os.Stat(override); !os.IsNotExist(err) {
		t.Errorf("codex taken off: AGENTS.override.md is still there (%v)", err)
	}
	if b.inputsChanged() {
		t.Error("inputs changed after the update with nothing done since")
	}
}

// BenchmarkBlockInputsLook is what Run does every inputsEvery for a
// checkout whose blocks go to Claude Code, Codex and Gemini CLI: stat
// agent.toml, HEAD, the branch, packed-refs, AGENTS.md and both Gemini
// settings files, and compare.
func BenchmarkBlockInputsLook(b *testing.B) {
	main, _ := gittest.NewCheckout(b, "")
	os.WriteFile(filepath.Join(main, "AGENTS.md"), []byte("# Agents\n"), 0o644)
	config := filepath.Join(b.TempDir(), "agent.toml")
	os.WriteFile(config, []byte("assistants = [\"claude\", \"codex\", \"gemini\"]\n"), 0o600)
	var in blockInputs
	in.list([]string{config}, []string{main}, map[string][]assistants.Assistant{
		main: {assistants.Claude, assistants.Codex, assistants.Gemini}})
	if len(in.files) != 7 {
		b.Fatalf("%d files: %q", len(in.files), in.files)
	}
	for b.Loop() {
		if in.changed() {
			b.Fatal("changed")
		}
	}
}
