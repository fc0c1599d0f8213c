package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/teammem/teammem/memcore"
)

// memoryFixture is a temporary home, managed folder and git project with
// memory files of every kind.
type memoryFixture struct {
	root, home, managed, project, autoMem string
}

// newMemoryFixture lays out ~/.claude, a project and its auto and team memory.
func newMemoryFixture(t *testing.T) memoryFixture {
	t.Helper()
	root := t.TempDir()
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	f := memoryFixture{
		root:    root,
		home:    filepath.Join(root, "home"),
		managed: filepath.Join(root, "managed"),
		project: filepath.Join(root, "src", "api"),
	}
	f.autoMem = filepath.Join(f.home, ".claude", "projects", memcore.SanitizePath(f.project), "memory")
	files := map[string]string{
		"managed/CLAUDE.md":                                  "managed policy\n",
		"home/.claude/CLAUDE.md":                             "user prefs\n",
		"home/.claude/rules/style.md":                        "user style\n",
		"src/api/.git/HEAD":                                  "ref: refs/heads/main\n",
		"src/api/CLAUDE.md":                                  "project rules\n@docs/extra.md\n",
		"src/api/docs/extra.md":                              "extra notes\n",
		"src/api/CLAUDE.local.md":                            "local notes\n",
		"src/api/.claude/rules/ts.md":                        "---\npaths: src/**/*.ts\n---\nts rule\n",
		"src/api/.claude/settings.json":                      `{"autoMemoryDirectory": "~/.ssh"}`,
		"src/api/src/app/main.ts":                            "",
		"home/.ssh/id_ed25519":                               "not memory\n",
		rel(root, f.autoMem) + "/MEMORY.md":                  "- [Role](user_role.md) — data scientist\n- [Gone](gone.md) — dead link\n- " + strings.Repeat("x", 160) + "\n",
		rel(root, f.autoMem) + "/user_role.md":               "---\nname: Role\ndescription: data scientist\ntype: user\n---\n",
		rel(root, f.autoMem) + "/team/MEMORY.md":             "- [API](api.md) — REST conventions\n",
		rel(root, f.autoMem) + "/team/api.md":                "---\nname: API\ntype: project\n---\n",
		rel(root, f.autoMem) + "/logs/2026/03/2026-03-31.md": "- a log entry\n",
	}
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// rel is p relative to root with forward slashes.
func rel(root, p string) string {
	r, _ := filepath.Rel(root, p)
	return filepath.ToSlash(r)
}

// run runs `teammem-agent memory ARGS --cwd --home --managed-dir` with an
// environment holding vars only.
func (f memoryFixture) run(t *testing.T, vars map[string]string, args ...string) (string, string, error) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	e := &cliEnv{
		Stdout: &stdout, Stderr: &stderr,
		Getenv: func(k string) string { return vars[k] },
		Cwd:    filepath.Join(f.root, "elsewhere"),
		Home:   filepath.Join(f.root, "nobody"),
	}
	full := append([]string{"memory"}, args...)
	full = append(full, "--cwd", f.project, "--home", f.home, "--managed-dir", f.managed)
	err := run(context.Background(), e, full)
	return stdout.String(), stderr.String(), err
}

func TestMemoryPathsJSON(t *testing.T) {
	f := newMemoryFixture(t)
	out, _, err := f.run(t, nil, "paths", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]string
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v: %q", err, out)
	}
	sep := string(filepath.Separator)
	want := map[string]string{
		"projectRoot":   f.project,
		"canonicalRoot": f.project,
		"memoryBase":    filepath.Join(f.home, ".claude"),
		"autoMemDir":    f.autoMem + sep, // the project's settings.json may not redirect it to ~/.ssh
		"teamDir":       filepath.Join(f.autoMem, "team") + sep,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("paths (-want +got):\n%s", diff)
	}
}

func TestMemoryFilesJSON(t *testing.T) {
	f := newMemoryFixture(t)
	out, _, err := f.run(t, nil, "files", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Files       []map[string]any `json:"files"`
		Diagnostics []map[string]any `json:"diagnostics"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v: %q", err, out)
	}
	p := func(name string) string { return filepath.Join(f.root, filepath.FromSlash(name)) }
	file := func(path, typ string, parent any) map[string]any {
		return map[string]any{"path": path, "type": typ, "parent": parent, "globs": nil, "truncated": false}
	}
	want := []map[string]any{
		file(p("managed/CLAUDE.md"), "Managed", nil),
		file(p("home/.claude/CLAUDE.md"), "User", nil),
		file(p("home/.claude/rules/style.md"), "User", nil),
		file(p("src/api/CLAUDE.md"), "Project", nil),
		file(p("src/api/docs/extra.md"), "Project", p("src/api/CLAUDE.md")),
		file(p("src/api/CLAUDE.local.md"), "Local", nil),
		file(filepath.Join(f.autoMem, "MEMORY.md"), "AutoMem", nil),
		{"path": filepath.Join(f.autoMem, "team", "MEMORY.md"), "type": "TeamMem", "parent": nil, "globs": nil, "truncated": false,
			"note": teamIndexNote},
	}
	if diff := cmp.Diff(want, got.Files); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	wantDiag := map[string]any{"path": p("src/api/.claude/settings.json"),
		"message": "setting autoMemoryDirectory ignored: project settings may not move the memory folder"}
	if diff := cmp.Diff([]map[string]any{wantDiag}, got.Diagnostics); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
	if !strings.Contains(out, `"parent":null`) || !strings.Contains(out, `"globs":null`) {
		t.Errorf("parent/globs are not null when unset: %s", out)
	}
}

func TestMemoryRulesJSON(t *testing.T) {
	f := newMemoryFixture(t)
	tests := []struct {
		name, target string
		want         []string
	}{
		{"matching relative path", "src/app/main.ts", []string{filepath.Join(f.project, ".claude", "rules", "ts.md")}},
		{"matching absolute path", filepath.Join(f.project, "src", "app", "main.ts"), []string{filepath.Join(f.project, ".claude", "rules", "ts.md")}},
		{"no match", "README.md", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, _, err := f.run(t, nil, "rules", tt.target, "--json")
			if err != nil {
				t.Fatal(err)
			}
			var got struct {
				Files []struct {
					Path  string   `json:"path"`
					Type  string   `json:"type"`
					Globs []string `json:"globs"`
				} `json:"files"`
			}
			if err := json.Unmarshal([]byte(out), &got); err != nil || got.Files == nil {
				t.Fatalf("%v: %q (want a files list)", err, out)
			}
			var paths []string
			for _, fl := range got.Files {
				paths = append(paths, fl.Path)
				if fl.Type != "Project" || len(fl.Globs) == 0 {
					t.Errorf("rule %+v: want type Project with globs", fl)
				}
			}
			if diff := cmp.Diff(tt.want, paths); diff != "" {
				t.Errorf("rules (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMemoryPrompt(t *testing.T) {
	f := newMemoryFixture(t)
	out, _, err := f.run(t, nil, "prompt")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		memcore.MemoryInstruction,
		"Contents of " + filepath.Join(f.project, "CLAUDE.md") + " (project instructions, checked into the codebase):\n\nproject rules",
		"local notes",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("prompt lacks %q:\n%s", want, out)
		}
	}
	// The team folder is not loaded directly, as in the real clients: its
	// index reaches the prompt only through the block in CLAUDE.local.md.
	if strings.Contains(out, "REST conventions") || strings.Contains(out, "team/MEMORY.md") {
		t.Errorf("the team index is in the prompt without a block:\n%s", out)
	}
	if strings.Contains(out, "ts rule") {
		t.Error("a conditional rule is in the prompt")
	}
	// Auto memory off: neither index is in the prompt.
	out, _, err = f.run(t, map[string]string{"CLAUDE_CODE_DISABLE_AUTO_MEMORY": "1"}, "prompt")
	if err != nil || strings.Contains(out, "MEMORY.md") {
		t.Errorf("with auto memory off the prompt names MEMORY.md (err %v)", err)
	}
}

func TestMemoryLint(t *testing.T) {
	f := newMemoryFixture(t)
	out, _, err := f.run(t, nil, "lint", "--json")
	var ee exitError
	if !errors.As(err, &ee) || ee.code != 1 {
		t.Fatalf("lint with problems: err %v, want exit 1", err)
	}
	var got struct {
		Problems []memcore.LintProblem `json:"problems"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v: %q", err, out)
	}
	type brief struct {
		Path string
		Line int
		Rule string
	}
	var gotBrief []brief
	for _, p := range got.Problems {
		gotBrief = append(gotBrief, brief{p.Path, p.Line, p.Rule})
	}
	index := filepath.Join(f.autoMem, "MEMORY.md")
	want := []brief{
		{index, 2, memcore.RuleDeadLink},
		{index, 3, memcore.RuleLongLine},
		{filepath.Join(f.autoMem, "team", "api.md"), 1, memcore.RuleTopicMissingDescription},
	}
	if diff := cmp.Diff(want, gotBrief); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}

	// Fix everything: exit 0 and an empty list.
	writeFile(t, index, "- [Role](user_role.md) — data scientist\n")
	writeFile(t, filepath.Join(f.autoMem, "team", "api.md"), "---\nname: API\ndescription: REST\ntype: project\n---\n")
	out, _, err = f.run(t, nil, "lint", "--json")
	if err != nil || strings.TrimSpace(out) != `{"problems":[]}` {
		t.Errorf("clean lint = %q, %v; want {\"problems\":[]} and exit 0", out, err)
	}
}

// writeFile replaces a file's content.
func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestMemoryUsage(t *testing.T) {
	f := newMemoryFixture(t)
	tests := []struct {
		name string
		args []string
	}{
		{"no subcommand", nil},
		{"unknown subcommand", []string{"frobnicate"}},
		{"rules without path", []string{"rules"}},
		{"paths with extra argument", []string{"paths", "x"}},
		{"unknown flag", []string{"paths", "--nope"}},
		{"bad log level", []string{"paths", "--log-level", "loud"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := f.run(t, nil, tt.args...)
			var ue usageError
			if !errors.As(err, &ue) {
				t.Errorf("err = %v, want a usage error (exit 2)", err)
			}
		})
	}
	out, _, err := f.run(t, nil, "--help")
	if err != nil || !strings.Contains(out, "rules PATH") {
		t.Errorf("--help = %q, %v", out, err)
	}
}

func TestMemoryEnvironmentTwins(t *testing.T) {
	f := newMemoryFixture(t)
	var stdout bytes.Buffer
	vars := map[string]string{"TEAMMEM_JSON": "1", "TEAMMEM_CWD": f.project, "TEAMMEM_HOME": f.home}
	e := &cliEnv{Stdout: &stdout, Stderr: &bytes.Buffer{}, Getenv: func(k string) string { return vars[k] }, Cwd: f.root, Home: f.root}
	if err := run(context.Background(), e, []string{"memory", "paths"}); err != nil {
		t.Fatal(err)
	}
	var got memcore.Paths
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatalf("%v: %q", err, stdout.String())
	}
	if got.ProjectRoot != f.project || got.MemoryBase != filepath.Join(f.home, ".claude") {
		t.Errorf("paths from environment twins = %+v", got)
	}
}

func TestMemoryWithoutHome(t *testing.T) {
	f := newMemoryFixture(t)
	var stdout bytes.Buffer
	// No HOME in the environment, no --home: the working directory must not
	// stand in for it (its .claude would load as the user's).
	e := &cliEnv{Stdout: &stdout, Stderr: &bytes.Buffer{}, Getenv: func(string) string { return "" }, Cwd: f.project}
	err := run(context.Background(), e, []string{"memory", "paths", "--json"})
	if err == nil || !strings.Contains(err.Error(), "no home directory: pass --home") {
		t.Fatalf("memory paths without a home: err = %v, out %q; want \"no home directory: pass --home\"", err, stdout.String())
	}
}

func TestMemoryAcceptsCommonFlags(t *testing.T) {
	f := newMemoryFixture(t)
	common := []string{"--log-level", "info", "--state-dir", f.root, "--server", "http://127.0.0.1:1",
		"--token", "t", "--token-file", filepath.Join(f.root, "token"), "--repo", "acme/api", "--dir", f.root}
	for _, sub := range [][]string{{"files"}, {"paths"}, {"prompt"}, {"rules", "src/app/main.ts"}} {
		t.Run(sub[0], func(t *testing.T) {
			if _, _, err := f.run(t, nil, append(append(sub, "--json"), common...)...); err != nil {
				t.Errorf("memory %s with the common flags: %v", sub[0], err)
			}
		})
	}
}

func TestMemoryRepoDirAliasesCwd(t *testing.T) {
	f := newMemoryFixture(t)
	tests := []struct {
		name string
		args []string
		vars map[string]string
	}{
		{"flag", []string{"--repo-dir", f.project}, nil},
		{"environment twin", nil, map[string]string{"TEAMMEM_REPO_DIR": f.project}},
		{"--cwd wins", []string{"--repo-dir", f.root, "--cwd", f.project}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout bytes.Buffer
			e := &cliEnv{Stdout: &stdout, Stderr: &bytes.Buffer{}, Getenv: func(k string) string { return tt.vars[k] },
				Cwd: filepath.Join(f.root, "elsewhere"), Home: f.home}
			if err := run(context.Background(), e, append([]string{"memory", "paths", "--json"}, tt.args...)); err != nil {
				t.Fatal(err)
			}
			var got memcore.Paths
			if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
				t.Fatalf("%v: %q", err, stdout.String())
			}
			if got.ProjectRoot != f.project {
				t.Errorf("projectRoot = %q, want %q", got.ProjectRoot, f.project)
			}
		})
	}
}

func TestMemoryPromptWarnsOfLargeFiles(t *testing.T) {
	f := newMemoryFixture(t)
	large := filepath.Join(f.project, "CLAUDE.local.md")
	writeFile(t, large, strings.Repeat("决", memcore.MaxMemoryChars+1))
	_, stderr, err := f.run(t, nil, "prompt")
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(strings.TrimSpace(stderr), "\n"); len(lines) != 1 || !strings.Contains(lines[0], large) || !strings.Contains(lines[0], "40001") {
		t.Errorf("stderr = %q, want one line naming %s and its 40001 characters", stderr, large)
	}
	out, _, err := f.run(t, nil, "prompt", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Prompt   string                  `json:"prompt"`
		Warnings []memcore.PromptWarning `json:"warnings"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v: %q", err, out)
	}
	if diff := cmp.Diff([]memcore.PromptWarning{{Path: large, Chars: memcore.MaxMemoryChars + 1}}, got.Warnings); diff != "" || got.Prompt == "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}
