package memcore

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/teammem/teammem/internal/atomicfile"
)

// TempPrefix starts the name of every temporary file SafeWrite creates. No
// valid key has a segment starting with ".", so a temporary file never
// collides with a key; watchers recognise it with IsTempName and ignore it.
const TempPrefix = atomicfile.TempPrefix

// IsTempName reports whether the base name of name (a file name or path with
// either separator) is one of SafeWrite's temporary files.
func IsTempName(name string) bool {
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	return strings.HasPrefix(name, TempPrefix)
}

// CleanTemp removes the temporary files a crash left below dir: every regular
// file whose name starts with TempPrefix, at any depth, found through an
// os.Root (symlinks are neither followed nor removed). It returns the
// slash-separated paths, relative to dir, that it removed, and the errors it
// met joined; it keeps going after an error. Call it when no SafeWrite into
// dir is running (at start-up, under the agent's lock): it would remove the
// temporary file of a write in progress, and that write would then fail.
// The folders named in skip, directly below dir, are left alone (another
// agent's, under a lock of their own).
func CleanTemp(dir string, skip ...string) (removed []string, err error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("clean temporary files: %w", err)
	}
	defer root.Close()
	var errs []error
	walkErr := fs.WalkDir(root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			errs = append(errs, err)
			return nil // skip what cannot be read, keep walking
		}
		if d.IsDir() && !strings.Contains(p, "/") && slices.ContainsFunc(skip, func(s string) bool { return strings.EqualFold(s, p) }) {
			return fs.SkipDir
		}
		if !d.Type().IsRegular() || !IsTempName(d.Name()) {
			return nil
		}
		if err := root.Remove(filepath.FromSlash(p)); err != nil {
			errs = append(errs, err)
			return nil
		}
		removed = append(removed, p)
		return nil
	})
	if err := errors.Join(append(errs, walkErr)...); err != nil {
		return removed, fmt.Errorf("clean temporary files: %w", err)
	}
	return removed, nil
}
