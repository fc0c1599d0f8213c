package memcore

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// updateGolden is the -update flag, shared with other golden tests of the
// package should they define it first.
var updateGolden = func() *bool {
	if f := flag.Lookup("update"); f != nil {
		if g, ok := f.Value.(flag.Getter); ok {
			if b, ok := g.Get().(bool); ok {
				return &b
			}
		}
	}
	return flag.Bool("update", false, "rewrite golden files under testdata")
}()

// goldenCase is testdata/golden/<case>/case.json: how to build the tree and
// call Load. Paths are relative to the temporary root; "$ROOT" in patterns
// is replaced by it.
type goldenCase struct {
	Cwd                   string            `json:"cwd"`
	ProjectRoot           string            `json:"projectRoot"`
	CanonicalRoot         string            `json:"canonicalRoot"`
	AutoMemDir            string            `json:"autoMemDir"`
	AllowExternalIncludes bool              `json:"allowExternalIncludes"`
	Excludes              []string          `json:"excludes"`
	Bare                  bool              `json:"bare"`
	ExtraDirs             []string          `json:"extraDirs"`
	Env                   map[string]string `json:"env"`
	CaseInsensitive       bool              `json:"caseInsensitive"`
	Dirs                  []string          `json:"dirs"`     // empty folders git cannot keep
	Symlinks              map[string]string `json:"symlinks"` // link -> target
	Binary                []string          `json:"binary"`   // files written with NUL bytes
	Generate              []generated       `json:"generate"`
	ConditionalTargets    []string          `json:"conditionalTargets"`
}

// generated is a file of Lines lines made from Text ({n} is the line number),
// each padded with "." to Width bytes when Width is set.
type generated struct {
	Path  string `json:"path"`
	Lines int    `json:"lines"`
	Text  string `json:"text"`
	Width int    `json:"width"`
}

// goldenFile is one File as recorded in files.json.
type goldenFile struct {
	Path      string     `json:"path"`
	Type      MemoryType `json:"type"`
	Parent    string     `json:"parent,omitempty"`
	Globs     []string   `json:"globs,omitempty"`
	Differs   bool       `json:"contentDiffersFromDisk,omitempty"`
	Truncated bool       `json:"truncated,omitempty"`
}

// goldenResult is files.json.
type goldenResult struct {
	Files       []goldenFile            `json:"files"`
	Diagnostics []Diagnostic            `json:"diagnostics"`
	Conditional map[string][]goldenFile `json:"conditional,omitempty"`
}

func TestLoadGolden(t *testing.T) {
	cases, err := os.ReadDir(filepath.Join("testdata", "golden"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if !c.IsDir() {
			continue
		}
		t.Run(c.Name(), func(t *testing.T) { runGolden(t, filepath.Join("testdata", "golden", c.Name())) })
	}
}

func runGolden(t *testing.T, dir string) {
	var gc goldenCase
	gReadJSON(t, filepath.Join(dir, "case.json"), &gc)
	root := buildTree(t, dir, gc)
	opts := gc.options(root)
	res, err := Load(context.Background(), opts)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	rel := relativizer(root)
	got := goldenResult{Files: goldenFiles(res.Files, rel), Diagnostics: []Diagnostic{}}
	for _, d := range res.Diagnostics {
		got.Diagnostics = append(got.Diagnostics, Diagnostic{Path: rel(d.Path), Message: rel(d.Message)})
	}
	for _, target := range gc.ConditionalTargets {
		files, err := ConditionalRules(context.Background(), opts, filepath.Join(root, target))
		if err != nil {
			t.Fatalf("ConditionalRules(%s): %v", target, err)
		}
		if got.Conditional == nil {
			got.Conditional = map[string][]goldenFile{}
		}
		got.Conditional[target] = goldenFiles(files, rel)
	}
	gotJSON, err := json.MarshalIndent(got, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	compareGolden(t, filepath.Join(dir, "files.json"), string(gotJSON)+"\n")
	compareGolden(t, filepath.Join(dir, "prompt.txt"), rel(Prompt(res.Files, nil)))
}

// options builds the LoadOptions of a case over root.
func (gc goldenCase) options(root string) LoadOptions {
	at := func(p string) string {
		if p == "" {
			return ""
		}
		return filepath.Join(root, filepath.FromSlash(p))
	}
	opts := LoadOptions{
		Env: Env{
			Home: at("home"), ManagedDir: at("managed"), Cwd: at(gc.Cwd),
			Getenv: func(k string) string { return gc.Env[k] }, CaseInsensitive: gc.CaseInsensitive,
		},
		ProjectRoot: at(gc.ProjectRoot), CanonicalRoot: at(gc.CanonicalRoot), AutoMemDir: at(gc.AutoMemDir),
		AllowExternalIncludes: gc.AllowExternalIncludes, Bare: gc.Bare,
	}
	for _, d := range gc.ExtraDirs {
		opts.ExtraDirs = append(opts.ExtraDirs, at(d))
	}
	for _, p := range gc.Excludes {
		opts.Excludes = append(opts.Excludes, strings.ReplaceAll(p, "$ROOT", filepath.ToSlash(root)))
	}
	return opts
}

// buildTree copies <dir>/tree into a temporary root and adds what git
// cannot keep: empty folders, symlinks, binary and generated files.
func buildTree(t *testing.T, dir string, gc goldenCase) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(dir, "tree")
	if _, err := os.Stat(src); err == nil {
		if err := os.CopyFS(root, os.DirFS(src)); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range gc.Dirs {
		gMust(t, os.MkdirAll(filepath.Join(root, d), 0o755))
	}
	for _, b := range gc.Binary {
		gWrite(t, filepath.Join(root, b), "binary\x00\x01\x02 @not-an-include.md\n")
	}
	for _, g := range gc.Generate {
		gWrite(t, filepath.Join(root, g.Path), g.content())
	}
	for link, target := range gc.Symlinks {
		p := filepath.Join(root, link)
		gMust(t, os.MkdirAll(filepath.Dir(p), 0o755))
		gMust(t, os.Symlink(filepath.FromSlash(target), p))
	}
	return root
}

// content renders a generated file.
func (g generated) content() string {
	var b strings.Builder
	for n := 1; n <= g.Lines; n++ {
		line := strings.ReplaceAll(g.Text, "{n}", fmt.Sprint(n))
		if pad := g.Width - len(line); pad > 0 {
			line += strings.Repeat(".", pad)
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

// relativizer returns a function that makes paths and texts root-relative.
func relativizer(root string) func(string) string {
	return func(s string) string {
		s = strings.ReplaceAll(s, root+string(filepath.Separator), "")
		return strings.ReplaceAll(s, root, ".")
	}
}

// goldenFiles converts Files to their recorded form.
func goldenFiles(files []File, rel func(string) string) []goldenFile {
	out := []goldenFile{}
	for _, f := range files {
		out = append(out, goldenFile{Path: rel(f.Path), Type: f.Type, Parent: rel(f.Parent), Globs: f.Globs,
			Differs: f.ContentDiffersFromDisk, Truncated: f.Truncated})
	}
	return out
}

// compareGolden diffs got with the golden file, or rewrites it with -update.
func compareGolden(t *testing.T, path, got string) {
	t.Helper()
	if *updateGolden {
		gMust(t, os.WriteFile(path, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
	}
}

func gReadJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func gWrite(t *testing.T, path, content string) {
	t.Helper()
	gMust(t, os.MkdirAll(filepath.Dir(path), 0o755))
	gMust(t, os.WriteFile(path, []byte(content), 0o644))
}

func gMust(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
