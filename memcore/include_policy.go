package memcore

import (
	"path/filepath"
	"strings"
)

// include resolves one include token of includer and loads it when allowed:
// a text extension (or none), and inside the project root unless the
// includer is a User file or external includes are allowed.
func (l *loader) include(includer string, typ MemoryType, tok string, depth int) {
	target := l.resolveInclude(includer, tok)
	if ext := nodeExt(target); ext != "" && !IsTextExtension(target) {
		l.diag(target, "not loaded: include of a non-text file type "+ext+" (included by "+includer+")")
		return
	}
	guard := typ != User && !l.opts.AllowExternalIncludes
	if guard && !l.folderInsideProject(target) {
		l.outside(target, includer)
		return
	}
	l.process(target, typ, fileCtx{depth: depth + 1, parent: includer, guardLink: guard})
}

// resolveInclude turns an include token into a cleaned absolute path:
// ~/ against home, /abs as is, anything else against the includer's folder.
func (l *loader) resolveInclude(includer, tok string) string {
	switch {
	case strings.HasPrefix(tok, "~/"):
		return filepath.Join(l.opts.Env.Home, filepath.FromSlash(tok[2:]))
	case filepath.IsAbs(tok) || strings.HasPrefix(tok, "/"):
		return filepath.Clean(filepath.FromSlash(tok))
	}
	return filepath.Join(filepath.Dir(includer), filepath.FromSlash(tok))
}

// folderInsideProject reports whether target lies inside the project root
// lexically and its folder does once symlinks are resolved (a symlink as
// the file itself is checked when it is read). Resolved folders are cached.
func (l *loader) folderInsideProject(target string) bool {
	if !l.within(target, l.projectRoot) {
		return false
	}
	dir := filepath.Dir(target)
	real, ok := l.realDirs[dir]
	if !ok {
		r, err := filepath.EvalSymlinks(dir)
		if err != nil {
			return true // missing: reported when read
		}
		real = r
		l.realDirs[dir] = r
	}
	return l.within(real, l.realProjectRoot())
}

// linkInsideProject checks a symlinked include: it reports (and returns
// false) when the link resolves outside the project root.
func (l *loader) linkInsideProject(path, includer string) bool {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		l.diag(path, "not loaded: included file not found (included by "+includer+")")
		return false
	}
	if !l.within(real, l.realProjectRoot()) {
		l.outside(path, includer)
		return false
	}
	return true
}

// realProjectRoot is the project root with symlinks resolved, computed once.
func (l *loader) realProjectRoot() string {
	if l.realProject == "" {
		l.realProject = l.projectRoot
		if r, err := filepath.EvalSymlinks(l.projectRoot); err == nil {
			l.realProject = r
		}
	}
	return l.realProject
}

// outside records an include refused for leaving the project.
func (l *loader) outside(target, includer string) {
	l.diag(target, "not loaded: include outside the project root "+l.projectRoot+" (included by "+includer+")")
}
