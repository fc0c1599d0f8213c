package memcore

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	"github.com/teammem/teammem/internal/atomicfile"
)

// Default permissions of what SafeWrite creates (before the umask).
const (
	// DefaultFilePerm is the permission of files SafeWrite creates.
	DefaultFilePerm fs.FileMode = 0o644
	// DefaultDirPerm is the permission of folders SafeWrite creates.
	DefaultDirPerm fs.FileMode = 0o755
)

// WriteOptions tunes SafeWriteWith. The zero value means the defaults.
type WriteOptions struct {
	// Perm is the new file's permission; zero means DefaultFilePerm.
	Perm fs.FileMode
	// DirPerm is the permission of folders created on the way; zero means
	// DefaultDirPerm.
	DirPerm fs.FileMode
}

// SafeWrite writes data to the file that key names below dir, atomically and
// only inside dir (spec/memcore.md §8): it validates the key, checks the path
// lexically and for symlinks, then does all I/O through an os.Root opened on
// the real path of dir, so that a symlink swapped in after the checks still
// cannot lead out. It creates missing folders, writes a temporary file named
// TempPrefix+random in the target's folder, fsyncs it, renames it over the
// target and fsyncs the folder (not on Windows). A reader sees the old content
// or the new, never a mix. On failure the temporary file is removed.
//
// Errors wrap protocol.ErrInvalidKey for an invalid key and ErrUnsafePath for a path
// that would leave dir; dir itself must exist and may be reached through a
// symlink. Below dir, only relative symlinks that stay inside are followed:
// an absolute one is refused with ErrUnsafePath, wherever it points. SafeWrite is safe for concurrent use; concurrent writes of one key
// leave one of the contents whole.
func SafeWrite(dir, key string, data []byte) error {
	return SafeWriteWith(dir, key, data, WriteOptions{})
}

// SafeWriteWith is SafeWrite with explicit permissions.
func SafeWriteWith(dir, key string, data []byte, opts WriteOptions) error {
	if opts.Perm == 0 {
		opts.Perm = DefaultFilePerm
	}
	if opts.DirPerm == 0 {
		opts.DirPerm = DefaultDirPerm
	}
	root, err := openSafe(dir, key)
	if err != nil {
		return fmt.Errorf("write key: %w", err)
	}
	defer root.Close()
	return WriteInRoot(root, key, data, opts)
}

// WriteInRoot writes data to key through root, creating its folders, with
// the project's one atomic write (temporary file, fsync, rename, folder
// fsync).
func WriteInRoot(root *os.Root, key string, data []byte, opts WriteOptions) error {
	if parent := path.Dir(key); parent != "." {
		if err := root.MkdirAll(filepath.FromSlash(parent), opts.DirPerm); err != nil {
			return RootError("create folder of", key, err)
		}
	}
	if err := atomicfile.WriteIn(root, filepath.FromSlash(key), opts.Perm, atomicfile.Bytes(data)); err != nil {
		return fmt.Errorf("write key %q: %w", key, err)
	}
	return nil
}

// SafeRead returns the content of the regular file that key names below dir,
// after the same checks as SafeWrite and through an os.Root. Errors wrap
// protocol.ErrInvalidKey, ErrUnsafePath, or fs.ErrNotExist for a missing file.
func SafeRead(dir, key string) ([]byte, error) {
	root, err := openSafe(dir, key)
	if err != nil {
		return nil, fmt.Errorf("read key: %w", err)
	}
	defer root.Close()
	name := filepath.FromSlash(key)
	if err := RequireRegular(root, name); err != nil {
		return nil, RootError("read key", key, err)
	}
	f, err := root.Open(name)
	if err != nil {
		return nil, RootError("read key", key, err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("read key %q: not a regular file", key)
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("read key %q: %w", key, err)
	}
	return data, nil
}

// SafeRemove removes the regular file that key names below dir, after the
// same checks as SafeWrite and through an os.Root, then fsyncs its folder.
// Folders left empty stay. Errors wrap protocol.ErrInvalidKey, ErrUnsafePath, or
// fs.ErrNotExist when there is no such file.
func SafeRemove(dir, key string) error {
	root, err := openSafe(dir, key)
	if err != nil {
		return fmt.Errorf("remove key: %w", err)
	}
	defer root.Close()
	name := filepath.FromSlash(key)
	if err := RequireRegular(root, name); err != nil {
		return RootError("remove key", key, err)
	}
	if err := root.Remove(name); err != nil {
		return RootError("remove key", key, err)
	}
	return atomicfile.SyncDir(root, filepath.FromSlash(path.Dir(key)))
}

// RequireRegular fails unless name is a regular file (not a folder, symlink,
// FIFO or device) inside root. Checking before opening keeps SafeRead from
// blocking on a FIFO planted under a key's name.
func RequireRegular(root *os.Root, name string) error {
	fi, err := root.Lstat(name)
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("not a regular file (%v)", fi.Mode().Type())
	}
	return nil
}
