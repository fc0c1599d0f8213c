package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/teammem/teammem/api"
)

// TestLogAndBlameShowProvenance: log and blame say who wrote each version
// and through what: a sync is the agent's, a seed the seed's, each with
// this build's User-Agent; blame --json is the server's answer.
func TestLogAndBlameShowProvenance(t *testing.T) {
	ts := newTestServer(t, true)
	ctx := t.Context()
	dir, seedDir := t.TempDir(), t.TempDir()
	env := agentEnv(t, ts, dir)
	env["TEAMMEM_TOKEN"] = ts.token(t, "ana", time.Hour, "acme/*:write")
	putFile(t, dir, "MEMORY.md", "- [Deploys](deploys.md)\n")
	if res := cli(t, ctx, env, "sync"); res.code != 0 {
		t.Fatalf("sync: %d %s", res.code, res.stderr)
	}
	seedEnv := agentEnv(t, ts, seedDir)
	seedEnv["TEAMMEM_TOKEN"] = ts.token(t, "ci-bot", time.Hour, "acme/*:write")
	putFile(t, seedDir, "MEMORY.md", "- [Style](style.md)\n")
	if res := cli(t, ctx, seedEnv, "seed"); res.code != 0 {
		t.Fatalf("seed: %d %s %s", res.code, res.stdout, res.stderr)
	}
	delete(env, "TEAMMEM_JSON")

	res := cli(t, ctx, env, "log", "MEMORY.md")
	if res.code != 0 || !strings.Contains(res.stdout, `version 2  put     `) ||
		!strings.Contains(res.stdout, `"ci-bot"`) || !strings.Contains(res.stdout, "via seed, teammem-agent/") ||
		!strings.Contains(res.stdout, `"ana"`) || !strings.Contains(res.stdout, "via agent, teammem-agent/") ||
		!strings.Contains(res.stdout, "with token:") {
		t.Errorf("log MEMORY.md: %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	res = cli(t, ctx, env, "log")
	if res.code != 0 || !strings.Contains(res.stdout, "via seed") || !strings.Contains(res.stdout, "via agent") {
		t.Errorf("log: %d\n%s%s", res.code, res.stdout, res.stderr)
	}

	res = cli(t, ctx, env, "blame", "MEMORY.md")
	lines := strings.Split(res.stdout, "\n")
	if res.code != 0 || len(lines) < 2 ||
		!strings.HasPrefix(lines[0], "1  ana   ") || !strings.HasSuffix(lines[0], "agent   | - [Deploys](deploys.md)") ||
		!strings.HasPrefix(lines[1], "2  ci-bot") || !strings.HasSuffix(lines[1], "seed    | - [Style](style.md)") {
		t.Errorf("blame: %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	env["TEAMMEM_JSON"] = "1"
	res = cli(t, ctx, env, "blame", "MEMORY.md", "--version", "1")
	var b api.Blame
	if err := json.Unmarshal([]byte(res.stdout), &b); err != nil || res.code != 0 {
		t.Fatalf("blame --json: %d %v\n%s%s", res.code, err, res.stdout, res.stderr)
	}
	if b.Version != 1 || len(b.Lines) != 1 || b.Revisions[0].Provenance.Surface != "agent" || b.Revisions[0].Provenance.Subject != "ana" {
		t.Errorf("blame --json --version 1: %+v", b)
	}
	res = cli(t, ctx, env, "blame", "never.md")
	if res.code == 0 || !strings.Contains(res.stderr, "no history") {
		t.Errorf("blame of a key never written: %d %s", res.code, res.stderr)
	}
}
