package session

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/teammem/teammem/memcore"
)

// agentFolder is an agent memory or snapshot folder: a base folder
// (<cwd>/.claude, or <memoryBase> for the user scope) and the folder names
// below it. In project scope every name below the base is checked into the
// repository, so none of them may be a symlink: a repository that made
// .claude/agent-memory/<type> a link to ~/Documents would otherwise have the
// snapshot code write and delete files there. The base itself may be reached
// through a symlink (a user's choice of where .claude lives); all I/O below
// it goes through an os.Root, which cannot leave it.
type agentFolder struct {
	base  string
	names []string
}

// path returns the folder's path with a trailing separator.
func (f agentFolder) path() string {
	return filepath.Join(append([]string{f.base}, f.names...)...) + string(filepath.Separator)
}

// open opens an os.Root on the folder after refusing (ErrUnsafePath) a
// symlink or reparse point among the names below the base. A missing folder
// is an error wrapping fs.ErrNotExist, unless create, which makes it.
func (f agentFolder) open(create bool) (*os.Root, error) {
	if create {
		if err := os.MkdirAll(f.base, memcore.DefaultDirPerm); err != nil {
			return nil, fmt.Errorf("open agent memory folder: %w", err)
		}
	}
	base, err := os.OpenRoot(f.base)
	if err != nil {
		return nil, fmt.Errorf("open agent memory folder: %w", err)
	}
	defer base.Close()
	rel := "."
	for _, name := range f.names {
		rel = filepath.Join(rel, name)
		if err := requirePlainDir(base, rel, create); err != nil {
			return nil, fmt.Errorf("open agent memory folder %s: %w", f.path(), err)
		}
	}
	root, err := base.OpenRoot(rel)
	if err != nil {
		return nil, fmt.Errorf("open agent memory folder: %w", memcore.RootError("open", rel, err))
	}
	return root, nil
}

// requirePlainDir fails unless rel inside base is a real folder, not a symlink
// or reparse point; with create a missing folder is made.
func requirePlainDir(base *os.Root, rel string, create bool) error {
	fi, err := base.Lstat(rel)
	if errors.Is(err, fs.ErrNotExist) && create {
		if err = base.Mkdir(rel, memcore.DefaultDirPerm); err == nil || errors.Is(err, fs.ErrExist) {
			fi, err = base.Lstat(rel)
		}
	}
	switch {
	case err != nil:
		return err
	case fi.Mode()&(fs.ModeSymlink|fs.ModeIrregular) != 0:
		return fmt.Errorf("%w: %s is a symlink or reparse point", memcore.ErrUnsafePath, rel)
	case !fi.IsDir():
		return fmt.Errorf("%s is not a folder", rel)
	}
	return nil
}
