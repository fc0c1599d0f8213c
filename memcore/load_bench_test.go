package memcore

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// benchTree is a generated project: 200 folders, 300 instruction and rules
// files (one in ten rules conditional) and 100 included files.
type benchTree struct {
	opts  LoadOptions
	files []string // every file Load reads
}

// benchBody is realistic instruction text of about 1.2 KB.
const benchBody = `# Conventions for %[1]s

Run the tests with make test before every commit; keep the build green.
Prefer small functions and table tests; wrap errors with context.

## Layout

- cmd/ holds the binaries, one folder each
- internal/ holds the packages, named for a noun
- docs/ holds the design notes and runbooks

` + "```sh" + `
make test
make lint
` + "```" + `

Never log secrets; never commit credentials; use the vault for tokens.
Write commit messages in the imperative and explain why, not what.
When in doubt, ask before deleting files or rewriting history.
Keep pull requests small: one concern each, with a test that fails first.
Document every exported identifier; keep comments in full sentences.
`

func newBenchTree(b *testing.B) benchTree {
	root, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	repo := filepath.Join(root, "repo")
	t := benchTree{opts: LoadOptions{ProjectRoot: repo}}
	write := func(path, content string) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			b.Fatal(err)
		}
		t.files = append(t.files, path)
	}
	var top []string
	dir := repo
	for depth := 0; depth <= 10; depth++ { // 11 folders + 11 .claude folders, 33 files
		top = append(top, filepath.Join(dir, claudeMdName), filepath.Join(dir, ConfigDirName, claudeMdName), filepath.Join(dir, claudeLocalMdName))
		t.opts.Env.Cwd = dir
		dir = filepath.Join(dir, fmt.Sprintf("d%d", depth+1))
	}
	rules := filepath.Join(repo, ConfigDirName, rulesDirName)
	for i := 0; len(top) < 300; i++ { // 175 rule folders, 267 rules files
		top = append(top, filepath.Join(rules, fmt.Sprintf("area%03d", i%175), fmt.Sprintf("rule%03d.md", i)))
	}
	for i, p := range top {
		body := fmt.Sprintf(benchBody, filepath.Base(p))
		if i%10 == 5 && strings.Contains(p, rulesDirName) {
			body = "---\npaths: src/**/*.{ts,tsx}\n---\n" + body
		}
		if i%4 == 0 {
			body += "\n<!-- maintainer note: refresh every quarter -->\n"
		}
		if i < 100 {
			inc := filepath.Join(repo, "docs", fmt.Sprintf("inc%03d.md", i))
			rel, _ := filepath.Rel(filepath.Dir(p), inc)
			body += "\nSee @" + filepath.ToSlash(rel) + " for details.\n"
			write(inc, fmt.Sprintf(benchBody, "include"))
		}
		write(p, body)
	}
	return t
}

func BenchmarkLoadLargeTree(b *testing.B) {
	tree := newBenchTree(b)
	ctx := context.Background()
	res, err := Load(ctx, tree.opts)
	if err != nil || len(res.Files) < 300 {
		b.Fatalf("Load: %d files, err %v", len(res.Files), err)
	}
	b.Run("read", func(b *testing.B) {
		defer reportCPU(b)()
		for b.Loop() {
			for _, p := range tree.files {
				if _, err := os.ReadFile(p); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("load+prompt", func(b *testing.B) {
		defer reportCPU(b)()
		for b.Loop() {
			res, err := Load(ctx, tree.opts)
			if err != nil {
				b.Fatal(err)
			}
			_ = Prompt(res.Files, nil)
		}
	})
}
