package agent

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// tempSuffix marks the temporary files of writeFileAtomic: "<name>.tmp-<rand>".
const tempSuffix = ".tmp-"

// writeFileAtomic replaces path with what write writes: it writes a
// temporary file in the same folder (buffered), fsyncs it, renames it over
// path and fsyncs the folder, so that a crash at any point leaves either
// the old or the new file, never a mix.
func writeFileAtomic(path string, perm os.FileMode, write func(io.Writer) error) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, filepath.Base(path)+tempSuffix+"*")
	if err != nil {
		return fmt.Errorf("create temporary file: %w", err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if err = f.Chmod(perm); err != nil {
		return fmt.Errorf("chmod temporary file: %w", err)
	}
	bw := bufio.NewWriterSize(f, 64<<10)
	if err = write(bw); err == nil {
		err = bw.Flush()
	}
	if err != nil {
		return fmt.Errorf("write temporary file: %w", err)
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("sync temporary file: %w", err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("close temporary file: %w", err)
	}
	if err = os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("rename temporary file: %w", err)
	}
	return syncDir(dir)
}

// syncDir fsyncs a folder so that a rename in it is durable. File systems
// and platforms that cannot sync a folder are not an error.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("open folder: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !isSyncUnsupported(err) {
		return fmt.Errorf("sync folder: %w", err)
	}
	return nil
}

// isSyncUnsupported reports errors of fsync on a folder that mean "not
// supported here" (Windows, some network file systems).
func isSyncUnsupported(err error) bool {
	var pe *os.PathError
	return errors.As(err, &pe) && (strings.Contains(pe.Err.Error(), "not supported") ||
		strings.Contains(pe.Err.Error(), "invalid argument") || strings.Contains(pe.Err.Error(), "Access is denied"))
}

// removeStaleTemps deletes temporary files that a crash of writeFileAtomic
// left beside path.
func removeStaleTemps(path string) {
	dir, prefix := filepath.Dir(path), filepath.Base(path)+tempSuffix
	entries, _ := os.ReadDir(dir) // nothing to clean in an unreadable folder
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), prefix) {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}
