package memcore

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/teammem/teammem/memcore/protocol"
)

// ErrUnsafePath is wrapped by the errors of SafeWrite, SafeRead and SafeRemove
// when a key would reach outside its folder: through a symlink that leads out
// or dangles, a symlink as the final component, or a lexical escape. An
// absolute symlink on the way is refused too, even when it points inside:
// the os.Root that does the I/O follows relative symlinks only.
var ErrUnsafePath = errors.New("unsafe path")

// openSafe runs the checks of spec/memcore.md §8 on key below dir (ValidateKey,
// the lexical check, the symlink check) and opens an os.Root on the real path
// of dir, through which the caller does all its I/O.
func openSafe(dir, key string) (*os.Root, error) {
	if err := protocol.ValidateKey(key); err != nil {
		return nil, err
	}
	if err := checkLexical(dir, key); err != nil {
		return nil, err
	}
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, fmt.Errorf("resolve memory folder: %w", err)
	}
	if err := checkSymlinks(realDir, key); err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(realDir)
	if err != nil {
		return nil, fmt.Errorf("open memory folder: %w", err)
	}
	return root, nil
}

// checkLexical reports ErrUnsafePath unless the cleaned join of dir and key
// lies inside dir. ValidateKey already rules escapes out; this is the second
// wall.
func checkLexical(dir, key string) error {
	base := filepath.Clean(dir)
	if !within(base, filepath.Join(base, filepath.FromSlash(key))) {
		return fmt.Errorf("check key %q: %w: leaves the folder", key, ErrUnsafePath)
	}
	return nil
}

// checkSymlinks walks key's components below realDir (a path without
// symlinks) with Lstat. It refuses a symlink as the final component and a
// dangling symlink anywhere, and requires the real path of the deepest
// existing ancestor to lie inside realDir.
func checkSymlinks(realDir, key string) error {
	segments := strings.Split(key, "/")
	deepest, p := realDir, realDir
	for i, seg := range segments {
		p = filepath.Join(p, seg)
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			break
		}
		if err != nil {
			return fmt.Errorf("check key %q: %w", key, err)
		}
		// Windows reports junctions and other reparse points as irregular,
		// not as symlinks; they get the same treatment.
		if fi.Mode()&(fs.ModeSymlink|fs.ModeIrregular) != 0 {
			if err := checkLink(p, key, strings.Join(segments[:i+1], "/"), i == len(segments)-1); err != nil {
				return err
			}
		}
		deepest = p
	}
	real, err := filepath.EvalSymlinks(deepest)
	if err != nil {
		return fmt.Errorf("check key %q: %w: %w", key, ErrUnsafePath, err)
	}
	if !within(realDir, real) {
		return fmt.Errorf("check key %q: %w: a symlink leads outside the folder", key, ErrUnsafePath)
	}
	return nil
}

// checkLink refuses the symlink (or reparse point) at p, named name within
// key: as the final component, when it dangles, and when its target is
// absolute, which os.Root never follows even when it stays inside.
func checkLink(p, key, name string, final bool) error {
	if final {
		return fmt.Errorf("check key %q: %w: final component is a symlink or reparse point", key, ErrUnsafePath)
	}
	if _, err := os.Stat(p); err != nil {
		return fmt.Errorf("check key %q: %w: symlink %q dangles", key, ErrUnsafePath, name)
	}
	if target, err := os.Readlink(p); err == nil && filepath.IsAbs(target) {
		return fmt.Errorf("check key %q: %w: absolute symlink %q (only relative symlinks that stay inside the folder are followed)", key, ErrUnsafePath, name)
	}
	return nil
}

// within reports whether path p is base or lies below it; both are cleaned.
func within(base, p string) bool {
	rel, err := filepath.Rel(base, p)
	if err != nil || filepath.IsAbs(rel) {
		return false
	}
	return rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// RootError wraps err from an os.Root operation, adding ErrUnsafePath when the
// root refused to follow a path out of itself: the sign of a symlink swapped
// in after the checks.
func RootError(verb, key string, err error) error {
	if isRootEscape(err) {
		return fmt.Errorf("%s %q: %w: %w", verb, key, ErrUnsafePath, err)
	}
	return fmt.Errorf("%s %q: %w", verb, key, err)
}

// isRootEscape reports whether err is os.Root's refusal to leave the root. The
// standard library does not export that error, so its text is compared.
func isRootEscape(err error) bool {
	for ; err != nil; err = errors.Unwrap(err) {
		if err.Error() == "path escapes from parent" {
			return true
		}
	}
	return false
}
