package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/teammem/teammem/memcore/protocol"

	"github.com/teammem/teammem/memcore"
)

// fileJSON is one memory file in `memory files` and `memory rules` output.
type fileJSON struct {
	Path      string   `json:"path"`
	Type      string   `json:"type"`
	Parent    *string  `json:"parent"`
	Globs     []string `json:"globs"`
	Truncated bool     `json:"truncated"`
	// Note explains an entry that is listed but not loaded (the team index).
	Note string `json:"note,omitempty"`
}

// teamIndexNote says how the team index reaches the model.
const teamIndexNote = "not loaded directly (no Claude Code version reads the team folder); " +
	"it reaches the model through the teammem block in the checkout's CLAUDE.local.md"

// teamIndexEntry lists the team folder's index, when it exists, as a
// TeamMem entry that is not loaded.
func (r *memoryRun) teamIndexEntry() []fileJSON {
	p := memcore.TeamIndexPath(r.loadOptions().AutoMemDir)
	if fi, err := os.Stat(p); p == "" || err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	return []fileJSON{{Path: p, Type: string(memcore.TeamMem), Note: teamIndexNote}}
}

// diagnosticJSON is one skipped file or ignored setting.
type diagnosticJSON struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

// toFileJSON converts loaded files; parent is null unless included, globs
// null unless conditional, and the list is [] rather than null.
func toFileJSON(files []memcore.File) []fileJSON {
	out := make([]fileJSON, 0, len(files))
	for _, f := range files {
		j := fileJSON{Path: f.Path, Type: string(f.Type), Truncated: f.Truncated}
		if f.Parent != "" {
			parent := f.Parent
			j.Parent = &parent
		}
		if len(f.Globs) > 0 {
			j.Globs = f.Globs
		}
		out = append(out, j)
	}
	return out
}

// memoryPrompt prints the assembled prompt (memcore §6), and on stderr one
// warning per file over memcore.MaxMemoryChars (with --json also in the
// object's warnings list).
func memoryPrompt(ctx context.Context, r *memoryRun, _ []string) error {
	res, err := memcore.Load(ctx, r.loadOptions())
	if err != nil {
		return fmt.Errorf("memory prompt: %w", err)
	}
	prompt := memcore.Prompt(res.Files, nil)
	warnings := memcore.LargeFiles(res.Files)
	for _, w := range warnings {
		fmt.Fprintf(r.e.Stderr, "warning: %s has %d characters, over the %d a memory file should hold; the assistant may ignore part of it\n",
			w.Path, w.Chars, memcore.MaxMemoryChars)
	}
	if r.flags.json {
		return r.emitJSON(struct {
			Prompt   string                  `json:"prompt"`
			Warnings []memcore.PromptWarning `json:"warnings"`
		}{prompt, append([]memcore.PromptWarning{}, warnings...)})
	}
	if prompt != "" {
		fmt.Fprintln(r.e.Stdout, prompt)
	}
	return nil
}

// memoryFiles lists the files in load order with the diagnostics.
func memoryFiles(ctx context.Context, r *memoryRun, _ []string) error {
	res, err := memcore.Load(ctx, r.loadOptions())
	if err != nil {
		return fmt.Errorf("memory files: %w", err)
	}
	diags := make([]diagnosticJSON, 0, len(r.layout.Diagnostics)+len(res.Diagnostics))
	for _, d := range append(append([]memcore.Diagnostic{}, r.layout.Diagnostics...), res.Diagnostics...) {
		diags = append(diags, diagnosticJSON{Path: d.Path, Message: d.Message})
	}
	if r.flags.json {
		return r.emitJSON(struct {
			Files       []fileJSON       `json:"files"`
			Diagnostics []diagnosticJSON `json:"diagnostics"`
		}{append(toFileJSON(res.Files), r.teamIndexEntry()...), diags})
	}
	printFiles(r, res.Files)
	for _, f := range r.teamIndexEntry() {
		fmt.Fprintf(r.e.Stdout, "%-8s %s  (%s)\n", f.Type, f.Path, f.Note)
	}
	for _, d := range diags {
		fmt.Fprintf(r.e.Stdout, "skipped  %s: %s\n", d.Path, d.Message)
	}
	return nil
}

// printFiles prints one line per file: type, path and how it came in.
func printFiles(r *memoryRun, files []memcore.File) {
	for _, f := range files {
		line := fmt.Sprintf("%-8s %s", f.Type, f.Path)
		if f.Parent != "" {
			line += "  (included by " + f.Parent + ")"
		}
		if len(f.Globs) > 0 {
			line += fmt.Sprintf("  (paths %v)", f.Globs)
		}
		if f.Truncated {
			line += "  (truncated)"
		}
		fmt.Fprintln(r.e.Stdout, line)
	}
}

// memoryPaths prints the memory folders.
func memoryPaths(_ context.Context, r *memoryRun, _ []string) error {
	p := r.layout.Paths
	if r.flags.json {
		return r.emitJSON(p)
	}
	for _, kv := range [][2]string{
		{"projectRoot", p.ProjectRoot}, {"canonicalRoot", p.CanonicalRoot}, {"memoryBase", p.MemoryBase},
		{"autoMemDir", p.AutoMemDir}, {"teamDir", p.TeamDir},
	} {
		fmt.Fprintf(r.e.Stdout, "%-14s %s\n", kv[0]+":", kv[1])
	}
	return nil
}

// memoryRules lists the conditional rules that apply to a path.
func memoryRules(ctx context.Context, r *memoryRun, args []string) error {
	target := args[0]
	if !filepath.IsAbs(target) {
		target = filepath.Join(r.env.Cwd, target)
	}
	files, err := memcore.ConditionalRules(ctx, r.loadOptions(), target)
	if err != nil {
		return fmt.Errorf("memory rules: %w", err)
	}
	if r.flags.json {
		return r.emitJSON(map[string][]fileJSON{"files": toFileJSON(files)})
	}
	printFiles(r, files)
	return nil
}

// memoryLint checks both MEMORY.md indexes and the topic files; exit 1 when
// there is any problem.
func memoryLint(ctx context.Context, r *memoryRun, _ []string) error {
	problems := []memcore.LintProblem{}
	for _, dir := range []string{r.layout.AutoMemDir, r.layout.TeamDir} {
		problems = append(problems, lintIndexFile(filepath.Join(dir, protocol.IndexName))...)
	}
	topics, err := memcore.LintTopics(r.layout.AutoMemDir)
	if err != nil {
		return fmt.Errorf("memory lint: %w", err)
	}
	problems = append(problems, topics...)
	stale, err := staleProblems(ctx, r)
	if err != nil {
		return fmt.Errorf("memory lint: %w", err)
	}
	problems = append(problems, stale...)
	if r.flags.json {
		if err := r.emitJSON(map[string][]memcore.LintProblem{"problems": problems}); err != nil {
			return err
		}
	} else {
		for _, p := range problems {
			fmt.Fprintf(r.e.Stdout, "%s:%d: %s: %s\n", p.Path, p.Line, p.Rule, p.Message)
		}
	}
	if len(problems) > 0 {
		return exitError{code: 1}
	}
	return nil
}

// lintIndexFile lints one MEMORY.md; a missing index has no problems, an
// unreadable one is a problem.
func lintIndexFile(path string) []memcore.LintProblem {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return []memcore.LintProblem{{Path: path, Line: 1, Rule: "unreadable", Message: err.Error()}}
	}
	dir := filepath.Dir(path)
	exists := func(rel string) bool {
		_, err := os.Stat(filepath.Join(dir, filepath.FromSlash(rel)))
		return err == nil
	}
	return memcore.LintIndex(path, string(data), exists)
}
