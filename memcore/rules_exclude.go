package memcore

import (
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// excluder applies claudeMdExcludes patterns.
type excluder struct {
	patterns []string
	fold     bool
}

// newExcluder prepares patterns: forward slashes, and for a pattern whose
// fixed leading folders go through a symlink, also the pattern with that
// prefix resolved (so /tmp/** also matches /private/tmp/... on macOS).
func newExcluder(patterns []string, fold bool) *excluder {
	e := &excluder{fold: fold}
	for _, p := range patterns {
		p = filepath.ToSlash(p)
		e.add(p)
		prefix := fixedPrefix(p)
		if prefix == "" {
			continue
		}
		real, err := filepath.EvalSymlinks(filepath.FromSlash(prefix))
		if err != nil {
			continue
		}
		if real = filepath.ToSlash(real); real != prefix {
			e.add(real + p[len(prefix):])
		}
	}
	return e
}

// add records one pattern, folded when matching is case-insensitive.
func (e *excluder) add(p string) {
	if e.fold {
		p = strings.ToLower(p)
	}
	e.patterns = append(e.patterns, p)
}

// fixedPrefix returns the leading folders of an absolute pattern that hold
// no glob syntax ("" when there are none or the pattern is relative). For a
// pattern without any glob syntax it is the pattern's folder.
func fixedPrefix(p string) string {
	if !strings.HasPrefix(p, "/") {
		return ""
	}
	parts := strings.Split(p, "/")
	n := len(parts) - 1
	for i, part := range parts {
		if strings.ContainsAny(part, `*?[{\`) {
			n = i
			break
		}
	}
	prefix := strings.Join(parts[:n], "/")
	if prefix == "" {
		return ""
	}
	return prefix
}

// excluded reports whether a User, Project or Local file matches a pattern;
// other types are never excluded.
func (e *excluder) excluded(path string, typ MemoryType) bool {
	if len(e.patterns) == 0 || (typ != User && typ != Project && typ != Local) {
		return false
	}
	s := filepath.ToSlash(path)
	if e.fold {
		s = strings.ToLower(s)
	}
	for _, p := range e.patterns {
		if ok, err := doublestar.Match(p, s); err == nil && ok {
			return true
		}
	}
	return false
}
