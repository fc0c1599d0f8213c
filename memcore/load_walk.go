package memcore

import (
	"context"
	"path/filepath"
	"strings"

	"github.com/teammem/teammem/memcore/protocol"
)

// Instruction file names.
const (
	claudeMdName      = "CLAUDE.md"
	claudeLocalMdName = "CLAUDE.local.md"
	memoryIndexName   = protocol.IndexName
	rulesDirName      = "rules"
)

// loader holds the state of one Load or ConditionalRules call.
type loader struct {
	ctx           context.Context
	opts          LoadOptions
	projectRoot   string
	canonicalRoot string
	realProject   string            // ProjectRoot with symlinks resolved, lazily
	realDirs      map[string]string // folder -> folder with symlinks resolved
	seen          map[string]bool
	excl          *excluder
	files         []File
	diags         []Diagnostic
}

// newLoader normalises the roots of opts.
func newLoader(ctx context.Context, opts LoadOptions) *loader {
	l := &loader{ctx: ctx, opts: opts, seen: map[string]bool{}, realDirs: map[string]string{}}
	l.projectRoot = l.abs(opts.ProjectRoot)
	if opts.ProjectRoot == "" {
		l.projectRoot = l.abs(opts.Env.Cwd)
	}
	l.canonicalRoot = l.projectRoot
	if opts.CanonicalRoot != "" {
		l.canonicalRoot = l.abs(opts.CanonicalRoot)
	}
	l.excl = newExcluder(opts.Excludes, opts.Env.CaseInsensitive)
	return l
}

// abs makes p absolute against the working directory and cleans it.
func (l *loader) abs(p string) string {
	if p == "" {
		return ""
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(l.opts.Env.Cwd, p)
	}
	return filepath.Clean(p)
}

// key is the identity of a path for the at-most-once rule.
func (l *loader) key(p string) string {
	if l.opts.Env.CaseInsensitive {
		return strings.ToLower(p)
	}
	return p
}

// within reports whether p is root or below it (both cleaned, absolute).
func (l *loader) within(p, root string) bool {
	p, root = l.key(p), l.key(root)
	if p == root {
		return true
	}
	if !strings.HasSuffix(root, string(filepath.Separator)) {
		root += string(filepath.Separator)
	}
	return strings.HasPrefix(p, root)
}

// loadManaged loads the managed CLAUDE.md and managed rules.
func (l *loader) loadManaged() {
	dir := l.abs(l.opts.Env.managedDir())
	l.loadTop(filepath.Join(dir, claudeMdName), Managed)
	l.loadRules(filepath.Join(dir, ConfigDirName, rulesDirName), Managed)
}

// loadUser loads ~/.claude/CLAUDE.md and ~/.claude/rules/**.
func (l *loader) loadUser() {
	if l.opts.Env.Home == "" {
		return
	}
	dir := l.abs(l.opts.Env.userConfigDir())
	l.loadTop(filepath.Join(dir, claudeMdName), User)
	l.loadRules(filepath.Join(dir, rulesDirName), User)
}

// walkProject loads Project and Local files of every directory from the
// filesystem root down to the working directory.
func (l *loader) walkProject() {
	for _, dir := range ancestors(l.abs(l.opts.Env.Cwd)) {
		l.loadDir(dir, l.skipProjectIn(dir))
	}
}

// ancestors returns dir's ancestors from the filesystem root down to dir.
func ancestors(dir string) []string {
	if dir == "" {
		return nil
	}
	var dirs []string
	for {
		dirs = append(dirs, dir)
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	for i, j := 0, len(dirs)-1; i < j; i, j = i+1, j-1 {
		dirs[i], dirs[j] = dirs[j], dirs[i]
	}
	return dirs
}

// skipProjectIn applies the worktree rule: in a worktree nested inside the
// canonical checkout, the canonical checkout's own directories above the
// worktree contribute no Project files.
func (l *loader) skipProjectIn(dir string) bool {
	nested := l.key(l.projectRoot) != l.key(l.canonicalRoot) && l.within(l.projectRoot, l.canonicalRoot)
	return nested && l.within(dir, l.canonicalRoot) && !l.within(dir, l.projectRoot)
}

// loadDir loads one directory's CLAUDE.md, .claude/CLAUDE.md and
// unconditional .claude/rules (Project, unless skipProject) and its
// CLAUDE.local.md (Local).
func (l *loader) loadDir(dir string, skipProject bool) {
	if !skipProject {
		l.loadTop(filepath.Join(dir, claudeMdName), Project)
		l.loadTop(filepath.Join(dir, ConfigDirName, claudeMdName), Project)
		l.loadRules(filepath.Join(dir, ConfigDirName, rulesDirName), Project)
	}
	l.loadTop(filepath.Join(dir, claudeLocalMdName), Local)
}

// loadAutoMem loads the AutoMem index under the MEMORY.md budget. The
// team folder's index is not loaded: captured requests of the real Claude
// Code client (2.1.112, 2.1.209, 2.1.328) show that no version reads
// <autoMemDir>/team/ on its own. Team memory reaches the prompt through the
// teammem agent's block in the checkout's CLAUDE.local.md, loaded as Local.
func (l *loader) loadAutoMem() {
	if l.opts.AutoMemDir == "" {
		return
	}
	l.process(filepath.Join(l.abs(l.opts.AutoMemDir), memoryIndexName), AutoMem, fileCtx{index: true})
}

// loadTop loads a discovered instruction file and its includes.
func (l *loader) loadTop(path string, typ MemoryType) {
	l.process(path, typ, fileCtx{})
}

// loadRules loads the rules files of dir that have no `paths` frontmatter.
func (l *loader) loadRules(dir string, typ MemoryType) {
	for _, p := range l.listRules(dir) {
		l.process(p, typ, fileCtx{accept: unconditional})
	}
}

// unconditional accepts a rules file without globs.
func unconditional(globs []string) bool { return globs == nil }
