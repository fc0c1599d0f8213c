package memcore

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"syscall"
)

// fileCtx is how a file came to be processed.
type fileCtx struct {
	depth  int
	parent string
	// index applies the MEMORY.md budget.
	index bool
	// guardLink makes a symlinked file acceptable only when it resolves
	// inside the project root.
	guardLink bool
	// accept, when set, decides from the frontmatter globs whether a rules
	// file belongs to this load; a refused file is not marked as seen.
	accept func(globs []string) bool
}

// Read failures of memory files.
var (
	errSymlink    = errors.New("file is a symlink")
	errTooLarge   = errors.New("file is larger than the 16 MiB limit")
	errNotRegular = errors.New("not a regular file")
	errIsDir      = errors.New("is a directory")
	errBinary     = errors.New("binary content")
)

// maxFileBytes bounds what is read of one memory file, so that an include
// of a device such as /dev/zero cannot exhaust memory.
const maxFileBytes = 16 << 20

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
		if _, err := os.Lstat(path); err == nil {
			l.diag(path, "not loaded: excluded by claudeMdExcludes") // only what exists is news
		}
		return
	}
	raw, ok := l.read(path, fc)
	if !ok {
		return
	}
	fm, body, err := ParseFrontmatter(raw)
	var globs []string // only rules files are conditional
	if fc.accept != nil {
		globs = FrontmatterGlobs(fm)
		if err != nil && fm == nil && frontmatterHasPaths(raw) {
			// Conditional by intent: never load it everywhere instead.
			l.diag(path, "not loaded: its paths cannot be read: "+err.Error())
			return
		}
	}
	if err != nil {
		l.diag(path, "frontmatter ignored: "+err.Error())
	}
	if fc.accept != nil && !fc.accept(globs) {
		return
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
	data, err := readFileText(path, fc.guardLink)
	if errors.Is(err, errSymlink) {
		if !l.linkInsideProject(path, fc.parent) {
			return "", false
		}
		data, err = readFileText(path, false)
	}
	switch {
	case err == nil:
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		if fc.parent != "" {
			l.diag(path, "not loaded: included file not found (included by "+fc.parent+")")
		}
		return "", false
	case errors.Is(err, errBinary):
		l.diag(path, "not loaded: binary content")
		return "", false
	case errors.Is(err, syscall.EISDIR) || errors.Is(err, errIsDir):
		l.diag(path, "not loaded: is a directory")
		return "", false
	default:
		l.diag(path, "not loaded: unreadable: "+errText(err))
		return "", false
	}
	if strings.IndexByte(data, 0) >= 0 {
		l.diag(path, "not loaded: binary content")
		return "", false
	}
	return strings.TrimPrefix(data, utf8BOM), true
}

// errText is the error's message without the path *os.PathError repeats.
func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// diag records a diagnostic.
func (l *loader) diag(path, msg string) {
	l.diags = append(l.diags, Diagnostic{Path: path, Message: msg})
}
