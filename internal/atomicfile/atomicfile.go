// Package atomicfile is the project's one implementation of writing a file
// so that a reader, or the next run after a crash, sees the old content or
// the new, never a mix: write a temporary file in the target's folder,
// fsync it, move it into place (rename to replace, hard link to create
// exclusively) and fsync the folder. memcore's SafeWrite, the agent's
// journal, the server's signing key and memcore's consolidation lock all
// write through it.
package atomicfile

import (
	"bufio"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// TempPrefix starts the name of every temporary file this package creates,
// "<TempPrefix><random>" in the target's folder. A crash can leave one
// behind; watchers and cleaners recognise it by this prefix.
const TempPrefix = ".teammem-tmp-"

// Writer produces a file's content. It writes into a buffered writer.
type Writer func(io.Writer) error

// Bytes returns a Writer that writes data.
func Bytes(data []byte) Writer {
	return func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	}
}

// WriteIn replaces the file name (a path relative to root, with the OS
// separator) with what write writes, atomically: the temporary file, of
// mode perm before the umask, is written in name's folder, fsynced and
// renamed over name, then the folder is fsynced. On failure the temporary
// file is removed and name is untouched. name's folder must exist.
func WriteIn(root *os.Root, name string, perm fs.FileMode, write Writer) error {
	tmp, err := writeTemp(root, name, perm, write)
	if err != nil {
		return err
	}
	if err := root.Rename(tmp, name); err != nil {
		root.Remove(tmp) // best effort: the rename's error is the one that matters
		return fmt.Errorf("rename temporary file into %s: %w", name, err)
	}
	return syncDir(root, filepath.Dir(name))
}

// CreateIn is WriteIn that never replaces: when name exists the error wraps
// fs.ErrExist and name is untouched. The complete temporary file is hard
// linked into place, so no reader sees name partly written; on a file
// system without hard links name is created with O_EXCL and written in
// place instead (a crash may then leave it short).
func CreateIn(root *os.Root, name string, perm fs.FileMode, write Writer) error {
	tmp, err := writeTemp(root, name, perm, write)
	if err != nil {
		return err
	}
	defer root.Remove(tmp) // the link, when made, keeps the content
	err = root.Link(tmp, name)
	switch {
	case errors.Is(err, fs.ErrExist):
		return fmt.Errorf("create %s: %w", name, err)
	case err != nil:
		if err := createExclusive(root, name, perm, write); err != nil {
			return err
		}
	}
	return syncDir(root, filepath.Dir(name))
}

// Write is WriteIn for an absolute or relative path.
func Write(path string, perm fs.FileMode, write Writer) error {
	return inParent(path, func(root *os.Root, name string) error { return WriteIn(root, name, perm, write) })
}

// Create is CreateIn for an absolute or relative path.
func Create(path string, perm fs.FileMode, write Writer) error {
	return inParent(path, func(root *os.Root, name string) error { return CreateIn(root, name, perm, write) })
}

// inParent opens an os.Root on path's folder and calls f with path's base
// name.
func inParent(path string, f func(*os.Root, string) error) error {
	root, err := os.OpenRoot(filepath.Dir(path))
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer root.Close()
	return f(root, filepath.Base(path))
}

// writeTemp writes a complete, fsynced temporary file beside name and
// returns its name relative to root.
func writeTemp(root *os.Root, name string, perm fs.FileMode, write Writer) (tmp string, err error) {
	tmp = filepath.Join(filepath.Dir(name), TempPrefix+rand.Text())
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return "", fmt.Errorf("create temporary file for %s: %w", name, err)
	}
	if err := fill(f, write); err != nil {
		root.Remove(tmp) // best effort: the write's error is the one that matters
		return "", fmt.Errorf("write temporary file for %s: %w", name, err)
	}
	return tmp, nil
}

// fill writes write's output to f through a buffer, fsyncs and closes f.
func fill(f *os.File, write Writer) error {
	bw := bufio.NewWriterSize(f, 64<<10)
	err := write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = f.Sync()
	}
	return errors.Join(err, f.Close())
}

// createExclusive is CreateIn's fallback for file systems without hard
// links.
func createExclusive(root *os.Root, name string, perm fs.FileMode, write Writer) error {
	f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return fmt.Errorf("create %s: %w", name, err)
	}
	if err := fill(f, write); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	return nil
}

// SyncDir flushes the folder dir inside root, for callers that removed or
// renamed a file in it themselves. It does nothing where folders cannot be
// synced (Windows).
func SyncDir(root *os.Root, dir string) error { return syncDir(root, dir) }
