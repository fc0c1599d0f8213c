package teamblock

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/teammem/teammem/client/gitremote"
	"github.com/teammem/teammem/internal/atomicfile"
)

// LocalMdName is the file at the top of a checkout that holds the team
// memory block: every Claude Code version loads it, unasked, on the first
// turn, and git never shares it.
const LocalMdName = "CLAUDE.local.md"

// Why a checkout's CLAUDE.local.md is left alone.
var (
	// ErrLocalMdTracked: git tracks the file, so writing to it would
	// change the repository for everyone.
	ErrLocalMdTracked = errors.New("tracked by git")
	// ErrLocalMdDamaged: the file holds a marker without its partner, or
	// more than one block.
	ErrLocalMdDamaged = errors.New("holds a damaged teammem block")
	// ErrLocalMdNotRegular: the file is a symbolic link, a folder or a
	// device.
	ErrLocalMdNotRegular = errors.New("not a regular file")
)

// excludeLine keeps CLAUDE.local.md out of git in every worktree.
const excludeLine = "/" + LocalMdName

// WriteBlock puts block (a rendered teamblock, markers included) into the
// CLAUDE.local.md at the top of checkout: in place of the block already
// there, else at the top of the file (after a byte order mark and a
// frontmatter), creating the file when missing. Everything outside the
// block is kept byte for byte. The file is written atomically, and only
// when its content changes; before it is first written, CLAUDE.local.md is
// added to the repository's info/exclude unless git already ignores it. It
// reports whether the file was written; an error wraps ErrLocalMdTracked,
// ErrLocalMdDamaged or ErrLocalMdNotRegular when the file is left alone
// for that reason.
func WriteBlock(checkout, block string) (bool, error) {
	co, err := openLocalMd(checkout)
	if err != nil {
		return false, err
	}
	return updateLocalMd(co, func(old string) (string, error) { return spliceBlock(old, block) }, true)
}

// RemoveBlock takes the block out of the checkout's CLAUDE.local.md,
// keeping the rest byte for byte, and deletes the file when nothing else
// is left in it. A missing file or block is not an error. It reports
// whether the file changed.
func RemoveBlock(checkout string) (bool, error) {
	co, err := openLocalMd(checkout)
	if err != nil {
		return false, err
	}
	return updateLocalMd(co, func(old string) (string, error) { return spliceBlock(old, "") }, false)
}

// Current reports whether checkout's CLAUDE.local.md holds exactly
// block ("": no block), reading the file only; false when it cannot tell.
func Current(checkout, block string) bool {
	old, err := readLocalMd(checkout)
	if err != nil {
		return false
	}
	next, err := spliceBlock(old, block)
	return err == nil && next == old
}

// BlockState says, for status, whether checkout's CLAUDE.local.md holds
// the block: "in place", "missing", or why the agent leaves the file
// alone, with how to fix that.
func BlockState(checkout string) (state, fix string) {
	co, err := openLocalMd(checkout)
	if err == nil {
		var data string
		if data, err = readLocalMd(co.Root); err == nil {
			var begin int
			if begin, _, err = findBlock(data); err == nil {
				if begin < 0 {
					return "missing", ""
				}
				return "in place", ""
			}
			err = fmt.Errorf("%s %w", LocalMdName, err)
		}
	}
	return err.Error(), LocalMdFix(err)
}

// LocalMdFix tells a person how to let the agent write CLAUDE.local.md
// again after err.
func LocalMdFix(err error) string {
	switch {
	case errors.Is(err, ErrLocalMdTracked):
		return "untrack it with `git rm --cached " + LocalMdName + "` and commit (the file stays on disk), or run with --no-inject"
	case errors.Is(err, ErrLocalMdDamaged):
		return "delete the teammem marker lines and what is between them; the agent writes the block again"
	case errors.Is(err, ErrLocalMdNotRegular):
		return "make " + LocalMdName + " a regular file, or run with --no-inject"
	}
	return ""
}

// openLocalMd opens checkout's git layout and refuses a tracked
// CLAUDE.local.md.
func openLocalMd(checkout string) (gitremote.Checkout, error) {
	co, err := gitremote.OpenCheckout(checkout)
	if err != nil {
		return co, err
	}
	tracked, err := co.Tracked(LocalMdName)
	if err != nil {
		return co, err
	}
	if tracked {
		return co, fmt.Errorf("%s in %s is %w", LocalMdName, checkout, ErrLocalMdTracked)
	}
	return co, nil
}

// updateLocalMd applies edit to the file and writes the result when it
// differs, atomically; a file that changed while it was edited is read
// and edited again. create allows creating the file (and adding it to
// info/exclude); an empty result of a file that may not be created
// removes it.
func updateLocalMd(co gitremote.Checkout, edit func(string) (string, error), create bool) (bool, error) {
	path := filepath.Join(co.Root, LocalMdName)
	for attempt := 0; ; attempt++ {
		old, err := readLocalMd(co.Root)
		if err != nil {
			return false, err
		}
		next, err := edit(old)
		if err != nil {
			return false, fmt.Errorf("%s in %s %w", LocalMdName, co.Root, err)
		}
		if next == old {
			return false, nil
		}
		if !create && next == "" {
			return true, removeIfUnchanged(path, old)
		}
		if create {
			if err := excludeFromGit(co); err != nil {
				return false, err
			}
		}
		perm := os.FileMode(0o644)
		if fi, err := os.Stat(path); err == nil {
			perm = fi.Mode().Perm()
		}
		now, err := readLocalMd(co.Root)
		if err != nil {
			return false, err
		}
		if now != old { // edited meanwhile: start again, never write over it
			if attempt < 3 {
				continue
			}
			return false, fmt.Errorf("%s in %s keeps changing while the block is updated; left as it is until the next cycle", LocalMdName, co.Root)
		}
		err = atomicfile.Write(path, perm, atomicfile.Bytes([]byte(next)))
		if err != nil {
			return false, fmt.Errorf("write %s: %w", path, err)
		}
		return true, nil
	}
}

// readLocalMd reads the checkout's CLAUDE.local.md; a missing file is "",
// anything but a regular file an error wrapping ErrLocalMdNotRegular.
func readLocalMd(root string) (string, error) {
	path := filepath.Join(root, LocalMdName)
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%s is %w", path, ErrLocalMdNotRegular)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	return string(data), nil
}

// removeIfUnchanged deletes path unless it no longer holds old.
func removeIfUnchanged(path, old string) error {
	data, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(data, []byte(old)) {
		return nil // gone or edited: leave it
	}
	if err := os.Remove(path); err != nil {
		return fmt.Errorf("remove %s: %w", path, err)
	}
	return nil
}
