package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/teammem/teammem/memcore"
	"github.com/teammem/teammem/testkit/gittest"
)

// staleFixture is the memory fixture with a real git repository in the
// project (one commit holding client/push.go) and a team topic that
// refers to it.
func staleFixture(t *testing.T) memoryFixture {
	t.Helper()
	f := newMemoryFixture(t)
	if err := os.RemoveAll(filepath.Join(f.project, ".git")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(f.project, "client"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(f.project, "client", "push.go"), "package client\n\nfunc RetryPush() {}\n")
	gittest.Run(t, f.project, "init", "-q", "-b", "main")
	gittest.Run(t, f.project, "add", "client/push.go")
	gittest.Run(t, f.project, "commit", "-q", "-m", "push")
	writeFile(t, filepath.Join(f.autoMem, "MEMORY.md"), "- [Role](user_role.md) — data scientist\n")
	writeFile(t, filepath.Join(f.autoMem, "team", "api.md"), "---\nname: API\ndescription: REST\ntype: project\n---\n"+
		"Retries: `client/push.go:RetryPush`, `client/push.go:Backoff`, `client/push.go:2-9`, `client/gone.go`.\n"+
		"```\n`client/example.go`\n```\n")
	return f
}

func TestMemoryLintStaleReferences(t *testing.T) {
	f := staleFixture(t)
	out, _, err := f.run(t, nil, "lint", "--json")
	var ee exitError
	if !errors.As(err, &ee) || ee.code != 1 {
		t.Fatalf("lint: err %v, want exit 1; %s", err, out)
	}
	var got struct {
		Problems []map[string]any `json:"problems"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v: %q", err, out)
	}
	var rows [][4]any
	for _, p := range got.Problems {
		if p["rule"] != memcore.RuleStaleReference || p["path"] != filepath.Join(f.autoMem, "team", "api.md") {
			t.Errorf("problem %v", p)
		}
		rows = append(rows, [4]any{p["key"], p["reference"], p["line"], p["reason"]})
	}
	want := [][4]any{
		{"team/api.md", "client/push.go:Backoff", 6.0, "no-symbol"},
		{"team/api.md", "client/push.go:2-9", 6.0, "past-end"},
		{"team/api.md", "client/gone.go", 6.0, "missing"},
	}
	if d := cmp.Diff(want, rows); d != "" {
		t.Errorf("stale references (-want +got):\n%s", d)
	}
}

func TestMemoryConfirmAndStaleAfter(t *testing.T) {
	f := newMemoryFixture(t)
	writeFile(t, filepath.Join(f.autoMem, "MEMORY.md"), "- [Role](user_role.md) — data scientist\n")
	api := filepath.Join(f.autoMem, "team", "api.md")
	writeFile(t, api, "---\nname: API\ndescription: REST\ntype: project\n---\nbody\n")
	old := time.Now().Add(-200 * 24 * time.Hour)
	for _, p := range []string{api, filepath.Join(f.autoMem, "user_role.md")} {
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := f.run(t, nil, "lint"); err != nil {
		t.Fatalf("without --stale-after age is not checked: %v", err)
	}
	out, _, err := f.run(t, nil, "lint", "--stale-after", "90d")
	if err == nil || strings.Count(out, memcore.RuleStaleAge) != 2 {
		t.Fatalf("--stale-after 90d: %v\n%s", err, out)
	}
	if out, _, err := f.run(t, nil, "confirm", "api.md"); err != nil || !strings.Contains(out, "verified: "+time.Now().UTC().Format(time.DateOnly)) {
		t.Fatalf("confirm api.md: %v %q", err, out)
	}
	data, _ := os.ReadFile(api)
	if !strings.Contains(string(data), "\nverified: ") || !strings.HasSuffix(string(data), "---\nbody\n") {
		t.Errorf("confirmed topic:\n%s", data)
	}
	if err := os.Chtimes(api, old, old); err != nil {
		t.Fatal(err)
	}
	out, _, _ = f.run(t, nil, "lint", "--stale-after", "90")
	if strings.Contains(out, "team/api.md") || !strings.Contains(out, "user_role.md") {
		t.Errorf("after confirm: %s", out)
	}
	for _, bad := range [][]string{{"confirm", "missing.md"}, {"confirm", "../../x.md"}, {"lint", "--stale-after", "soon"}, {"confirm"}} {
		if _, _, err := f.run(t, nil, bad...); err == nil {
			t.Errorf("%v succeeded", bad)
		}
	}
}

func TestMemoryLintDamagedRepository(t *testing.T) {
	f := staleFixture(t)
	head := strings.TrimSpace(gittest.Run(t, f.project, "rev-parse", "HEAD"))
	obj := filepath.Join(f.project, ".git", "objects", head[:2], head[2:])
	if err := os.Chmod(obj, 0o644); err != nil {
		t.Fatal(err)
	}
	writeFile(t, obj, "not a git object")
	out, _, err := f.run(t, nil, "lint")
	var ee exitError
	if !errors.As(err, &ee) || ee.code != 1 || !strings.Contains(out, "unreadable: cannot check the memories' code references") {
		t.Errorf("lint with a damaged repository: %v\n%s", err, out)
	}
}
