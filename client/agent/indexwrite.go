package agent

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/teammem/teammem/memcore"
	"github.com/teammem/teammem/memcore/protocol"
)

// writeIndexIfUnchanged writes content to the index key (a MEMORY.md)
// unless the file no longer holds scanned, without losing a line another
// program appends meanwhile (issue 29's lost line). A file is replaced by
// renaming a new one over it, and a writer that opened the old file just
// before writes into a file nobody reads any more; indexes are appended to
// all the time, by the assistant and by hand. So:
//   - the check and the write go through one open file, read to its end;
//   - content that extends what was read (the usual case: lines appended
//     here, on the server, or both) is appended to that same file, after
//     whatever another program appended since: nothing is replaced;
//   - any other content replaces the file, and the lines appended to the
//     old file after it was read are appended to the new one.
func writeIndexIfUnchanged(dir, key, scanned, content string) error {
	if scanned == "" { // nothing there to append to or to lose
		if err := checkUnchanged(dir, key, scanned); err != nil {
			return err
		}
		return memcore.SafeWrite(dir, key, []byte(content))
	}
	f, old, err := openChecked(dir, key, scanned)
	if err != nil {
		return err
	}
	defer f.Close()
	if rest, ok := strings.CutPrefix(content, old); ok {
		if _, err := f.WriteString(rest); err != nil {
			return fmt.Errorf("append to %q: %w", key, err)
		}
		return f.Sync()
	}
	if err := memcore.SafeWrite(dir, key, []byte(content)); err != nil {
		return fmt.Errorf("write %q: %w", key, err)
	}
	if indexReplaced != nil {
		indexReplaced(key)
	}
	late, err := io.ReadAll(f) // what was appended to the old file since
	if err != nil || len(late) == 0 {
		return err
	}
	return appendTo(dir, key, late)
}

// indexReplaced, when a test sets it, is called right after an index was
// replaced, before the old file is read for late lines.
var indexReplaced func(key string)

// openChecked opens the regular file key in dir for reading and
// appending, reads it to its end, and returns it with its content unless
// its checksum is not scanned (an error wrapping errLocalChanged).
func openChecked(dir, key, scanned string) (*os.File, string, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, "", err
	}
	defer root.Close()
	name := filepath.FromSlash(key)
	lfi, err := root.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) || err == nil && !lfi.Mode().IsRegular() {
		return nil, "", fmt.Errorf("leave %q for now: %w", key, errLocalChanged)
	} else if err != nil {
		return nil, "", fmt.Errorf("check %q: %w", key, err)
	}
	f, err := root.OpenFile(name, os.O_RDWR|os.O_APPEND, 0)
	if err != nil {
		return nil, "", fmt.Errorf("check %q: %w", key, err)
	}
	fi, err := f.Stat()
	if err != nil || !os.SameFile(fi, lfi) { // replaced between the two looks
		f.Close()
		return nil, "", fmt.Errorf("leave %q for now: %w", key, errLocalChanged)
	}
	data, err := io.ReadAll(f)
	if err != nil {
		f.Close()
		return nil, "", fmt.Errorf("check %q: %w", key, err)
	}
	if protocol.EntryChecksum(data) != scanned {
		f.Close()
		return nil, "", fmt.Errorf("leave %q for now: %w", key, errLocalChanged)
	}
	return f, string(data), nil
}

// appendTo appends data to the regular file key in dir and syncs it.
func appendTo(dir, key string, data []byte) error {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	f, err := root.OpenFile(filepath.FromSlash(key), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return fmt.Errorf("append to %q: %w", key, err)
	}
	defer f.Close()
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("append to %q: %w", key, err)
	}
	return f.Sync()
}
