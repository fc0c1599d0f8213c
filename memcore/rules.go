package memcore

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// listRules returns the *.md files under dir, recursively, sorted by path.
// A missing or unreadable dir yields nothing.
func (l *loader) listRules(dir string) []string {
	var paths []string
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir {
				return fs.SkipDir
			}
			l.diag(p, "rules not listed: "+errText(err))
			return nil
		}
		if !d.IsDir() && strings.EqualFold(filepath.Ext(p), ".md") {
			paths = append(paths, p)
		}
		return nil
	})
	sort.Strings(paths)
	return paths
}

// ConditionalRules returns the rules files whose frontmatter `paths` globs
// match target, followed each by its includes: Managed and User rules
// (globs relative to the working directory) and the .claude/rules of every
// directory from the filesystem root down to the working directory and on
// down to target's folder (globs relative to the folder holding .claude).
// Globs use gitignore semantics. A relative target is taken against the
// working directory. The worktree rule, exclusions and the include policy of
// Load apply; an error is returned only when ctx ends or the disable switch
// is on (then the result is empty and nil).
func ConditionalRules(ctx context.Context, opts LoadOptions, target string) ([]File, error) {
	if truthy(opts.Env.getenv(EnvDisableClaudeMds)) {
		return nil, nil
	}
	l := newLoader(ctx, opts)
	target = l.abs(target)
	cwd := l.abs(opts.Env.Cwd)
	l.conditional(filepath.Join(l.abs(opts.Env.managedDir()), ConfigDirName, rulesDirName), Managed, cwd, target)
	if opts.Env.Home != "" {
		l.conditional(filepath.Join(l.abs(opts.Env.userConfigDir()), rulesDirName), User, cwd, target)
	}
	for _, dir := range ruleDirsFor(cwd, target) {
		if !l.skipProjectIn(dir) {
			l.conditional(filepath.Join(dir, ConfigDirName, rulesDirName), Project, dir, target)
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("match conditional rules: %w", err)
	}
	return l.files, nil
}

// ruleDirsFor lists cwd's ancestors (root first) and then the folders from
// cwd down to target's folder, when target lies below cwd.
func ruleDirsFor(cwd, target string) []string {
	dirs := ancestors(cwd)
	rel, err := filepath.Rel(cwd, filepath.Dir(target))
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return dirs
	}
	dir := cwd
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		dir = filepath.Join(dir, part)
		dirs = append(dirs, dir)
	}
	return dirs
}

// conditional loads the rules of rulesDir whose globs match target taken
// relative to base.
func (l *loader) conditional(rulesDir string, typ MemoryType, base, target string) {
	accept := func(globs []string) bool { return globs != nil && GlobsMatch(globs, base, target) }
	for _, p := range l.listRules(rulesDir) {
		l.process(p, typ, fileCtx{accept: accept})
	}
}

// GlobsMatch reports whether target, taken relative to base, matches any of
// the gitignore-style globs. A target outside base never matches.
func GlobsMatch(globs []string, base, target string) bool {
	rel, err := filepath.Rel(base, target)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return false
	}
	patterns := make([]gitignore.Pattern, 0, len(globs))
	for _, g := range globs {
		patterns = append(patterns, gitignore.ParsePattern(g, nil))
	}
	return gitignore.NewMatcher(patterns).Match(strings.Split(filepath.ToSlash(rel), "/"), false)
}
