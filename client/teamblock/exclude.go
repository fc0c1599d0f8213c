package teamblock

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/teammem/teammem/client/gitremote"
	"github.com/teammem/teammem/internal/atomicfile"
)

// excludeFromGit adds name (a slash path from the checkout's top) to the
// repository's info/exclude (shared by all its worktrees) unless git
// already ignores it there. A .gitignore is never edited.
func excludeFromGit(co gitremote.Checkout, name string) error {
	if co.Ignored(name) {
		return nil
	}
	path := co.ExcludeFile()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("keep %s out of git: %w", name, err)
	}
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("keep %s out of git: %w", name, err)
	}
	perm := os.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		perm = fi.Mode().Perm()
	}
	add := "# teammem-agent keeps this file in every worktree, never shared: " + name + "\n/" + name + "\n"
	if len(old) > 0 && !bytes.HasSuffix(old, []byte("\n")) {
		add = "\n" + add
	}
	err = atomicfile.Write(path, perm, func(w io.Writer) error {
		if _, err := w.Write(old); err != nil {
			return err
		}
		_, err := io.WriteString(w, add)
		return err
	})
	if err != nil {
		return fmt.Errorf("keep %s out of git: %w", name, err)
	}
	return nil
}
