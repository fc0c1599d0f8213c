package memcore

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// fileCtx is how a file came to be processed.
type fileCtx struct {
	depth  int
	parent string
	// index applies the MEMORY.md budget.
	index bool
	// accept, when set, decides from the frontmatter globs whether a rules
	// file belongs to this load; a refused file is not marked as seen.
	accept func(globs []string) bool
}

// utf8BOM is dropped from the start of every file.
const utf8BOM = "\uFEFF"

// process loads path as typ (unless already loaded, excluded, too deep or
// unusable), appends it to the result and then its includes, depth first.
func (l *loader) process(path string, typ MemoryType, fc fileCtx) {
	if l.ctx.Err() != nil || l.seen[l.key(path)] {
		return
	}
	if fc.depth >= maxIncludeDepth {
		l.diag(path, fmt.Sprintf("not loaded: include depth limit %d reached (included by %s)", maxIncludeDepth, fc.parent))
		return
	}
	if l.excl.excluded(path, typ) {
		l.diag(path, "not loaded: excluded by claudeMdExcludes")
		return
	}
	raw, ok := l.read(path, fc)
	if !ok {
		return
	}
	fm, body, err := ParseFrontmatter(raw)
	if err != nil {
		l.diag(path, "frontmatter ignored: "+err.Error())
	}
	var globs []string // only rules files are conditional
	if fc.accept != nil {
		if globs = FrontmatterGlobs(fm); !fc.accept(globs) {
			return
		}
	}
	l.seen[l.key(path)] = true
	l.emit(path, typ, raw, body, globs, fc)
}

// emit analyses the body, records the file and follows its includes.
func (l *loader) emit(path string, typ MemoryType, raw, body string, globs []string, fc fileCtx) {
	a := analyzeMarkdown(body)
	f := File{Path: path, Type: typ, Content: a.content, Parent: fc.parent, Globs: globs}
	if fc.index {
		var kept string
		f.Content, kept, f.Truncated = truncateIndex(path, a.content)
		if f.Truncated {
			a.includes = ExtractIncludes(kept)
		}
	}
	if f.Content != raw {
		f.ContentDiffersFromDisk, f.RawContent = true, raw
	}
	l.files = append(l.files, f)
	for _, inc := range a.includes {
		l.include(path, typ, inc, fc.depth)
	}
}

// read returns the file's text with a BOM dropped; a missing discovered
// file is silent, every other failure becomes a diagnostic.
func (l *loader) read(path string, fc fileCtx) (string, bool) {
	data, err := os.ReadFile(path)
	switch {
	case err == nil:
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		if fc.parent != "" {
			l.diag(path, "not loaded: included file not found (included by "+fc.parent+")")
		}
		return "", false
	case errors.Is(err, syscall.EISDIR):
		l.diag(path, "not loaded: is a directory")
		return "", false
	default:
		l.diag(path, "not loaded: unreadable: "+errText(err))
		return "", false
	}
	if bytes.IndexByte(data, 0) >= 0 {
		l.diag(path, "not loaded: binary content")
		return "", false
	}
	return strings.TrimPrefix(string(data), utf8BOM), true
}

// errText is the error's message without the path *os.PathError repeats.
func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// include resolves one include token of includer and loads it when allowed.
func (l *loader) include(includer string, typ MemoryType, tok string, depth int) {
	target := l.resolveInclude(includer, tok)
	if ext := filepath.Ext(target); ext != "" && !IsTextExtension(target) {
		l.diag(target, "not loaded: include of a non-text file type "+ext+" (included by "+includer+")")
		return
	}
	if typ != User && !l.opts.AllowExternalIncludes && !l.insideProject(target) {
		l.diag(target, "not loaded: include outside the project root "+l.projectRoot+" (included by "+includer+")")
		return
	}
	l.process(target, typ, fileCtx{depth: depth + 1, parent: includer})
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

// insideProject reports whether target is inside the project root, both
// lexically and after resolving symlinks (so a link inside the project
// cannot pull in a file from elsewhere).
func (l *loader) insideProject(target string) bool {
	if !l.within(target, l.projectRoot) {
		return false
	}
	real, err := filepath.EvalSymlinks(target)
	if err != nil {
		return true // missing: reported when read
	}
	if l.realProject == "" {
		l.realProject = l.projectRoot
		if r, err := filepath.EvalSymlinks(l.projectRoot); err == nil {
			l.realProject = r
		}
	}
	return l.within(real, l.realProject)
}

// diag records a diagnostic.
func (l *loader) diag(path, msg string) {
	l.diags = append(l.diags, Diagnostic{Path: path, Message: msg})
}
