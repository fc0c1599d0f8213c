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

// writeChecked writes content to key in dir unless the file no longer
// holds scanned (an error wrapping errLocalChanged), without losing what
// another program writes to the file meanwhile (a line appended to
// MEMORY.md while a pull replaced it was lost). A file is replaced by
// renaming a new one over it, and a writer that opened the old file just
// before writes into a file nobody reads any more; the
// assistant and people append to MEMORY.md (and to topics) at any moment.
// So:
//   - the check and the write go through one open file, read to its end;
//   - content that extends what was read (the usual case: lines appended
//     here, on the server, or both) is appended to that same file, after
//     whatever another program appended since: nothing is replaced;
//   - any other content replaces the file; then what was appended to the
//     old file after it was read is appended to the new one, and an old
//     file rewritten meanwhile is handed to rewritten (what was read, and
//     its whole content now); the old file is then handed to keep, open,
//     with its content as read last, for the engine to look at again
//     (replacedFiles).
func writeChecked(dir, key, scanned, content string, rewritten func(old, late string) error, keep func(f *os.File, seen string)) error {
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
	if rest, ok := strings.CutPrefix(content, old); ok {
		defer f.Close()
		if _, err := f.WriteString(rest); err != nil {
			return fmt.Errorf("append to %q: %w", key, err)
		}
		return f.Sync()
	}
	if err := memcore.SafeWrite(dir, key, []byte(content)); err != nil {
		f.Close()
		return fmt.Errorf("write %q: %w", key, err)
	}
	if replaced != nil {
		replaced(key)
	}
	now, err := readFrom0(f) // the old file, as it is now
	if err == nil {
		keep(f, now) // a writer may still be about to write to it
	} else {
		f.Close()
	}
	switch {
	case err != nil:
		return fmt.Errorf("check %q after writing it: %w", key, err)
	case now == old:
		return nil
	case strings.HasPrefix(now, old):
		return appendTo(dir, key, afterLastLine(content, now[len(old):]))
	}
	return rewritten(old, now)
}

// readFrom0 reads f from its start.
func readFrom0(f *os.File) (string, error) {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return "", err
	}
	data, err := io.ReadAll(f)
	return string(data), err
}

// replaced, when a test sets it, is called right after a file was
// replaced, before the old file is read again.
var replaced func(key string)

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

// afterLastLine is data to append to a file holding content: on a line of
// its own when content does not end with one.
func afterLastLine(content, data string) []byte {
	if content != "" && !strings.HasSuffix(content, "\n") {
		data = "\n" + data
	}
	return []byte(data)
}
