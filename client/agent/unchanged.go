package agent

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/teammem/teammem/memcore/protocol"
)

// errLocalChanged says a file changed after the scan a plan was made from;
// its key was left alone and the cycle plans again.
var errLocalChanged = errors.New("a file changed while syncing")

// notAFile stands for "something other than a regular file" where a
// checksum is expected; it equals no entry checksum.
const notAFile = "not a regular file"

// currentChecksum returns the entry checksum of the file key in dir as it
// is now: "" when nothing is there, notAFile when something other than a
// regular file is.
func currentChecksum(dir, key string) (string, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return "", err
	}
	defer root.Close()
	name := filepath.FromSlash(key)
	fi, err := root.Lstat(name)
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		return "", nil
	case err != nil:
		return "", err
	case !fi.Mode().IsRegular():
		return notAFile, nil
	}
	data, err := root.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	} else if err != nil {
		return "", err
	}
	return protocol.EntryChecksum(data), nil
}

// checkUnchanged returns an error wrapping errLocalChanged unless key in
// dir still holds what a plan was made from (scanned, "" for absent). It
// touches nothing but the folder, so it may run on several goroutines.
func checkUnchanged(dir, key, scanned string) error {
	now, err := currentChecksum(dir, key)
	switch {
	case err != nil:
		return fmt.Errorf("check %q: %w", key, err)
	case now == notAFile && scanned == "":
		return fmt.Errorf("write %q: something other than a regular file is in the way", key)
	case now != scanned:
		return fmt.Errorf("leave %q for now: %w", key, errLocalChanged)
	}
	return nil
}

// unchanged checks, right before a local write, removal or merge, that key
// still holds what the plan was made from (see checkUnchanged); when it
// does not, the key is marked for the next refresh.
func (e *Engine) unchanged(key, scanned string) error {
	err := checkUnchanged(e.cfg.Dir, key, scanned)
	if errors.Is(err, errLocalChanged) {
		e.local.changed(key)
	}
	return err
}
