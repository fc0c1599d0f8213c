package teamblock

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/teammem/teammem/client/assistants"
)

// copyBegin and copyEnd are the marker lines around the copy of the file a
// target carries (see assistants.Assistant.Carry).
func copyBegin(t assistants.Assistant) string { return "<!-- teammem:copy-begin " + t.Carry + " -->" }
func copyEnd(t assistants.Assistant) string   { return "<!-- teammem:copy-end " + t.Carry + " -->" }

// placeCarrying splices block into old, a file that replaces t.Carry for
// the assistant. When the file is the agent's (it holds a copy region, or
// nothing but the block, or is missing) the copy region is brought in step
// with t.Carry's text (taken out when t.Carry is missing) and the block
// goes after it; ours is true then. A file of the user's own, written
// before the agent came, replaces t.Carry by the user's choice: ours is
// false and the caller splices the block in as anywhere else. Removing the
// block (block "") removes the copy region too.
func (f *file) placeCarrying(old, block string) (next string, ours bool, err error) {
	begin, end, err := findMarked(old, copyBegin(f.t), copyEnd(f.t))
	if err != nil {
		return "", true, err
	}
	if begin < 0 {
		rest, err := spliceBlock(old, "")
		if err != nil || rest != "" {
			return "", false, err
		}
	}
	region := ""
	if block != "" {
		if region, err = f.carriedRegion(); err != nil {
			return "", true, err
		}
	}
	s := region + old
	if begin >= 0 {
		s = old[:begin] + region + old[end:]
	}
	next, err = spliceBlockAt(s, block, true)
	return next, true, err
}

// carriedRegion returns the copy region for the current text of t.Carry,
// "" when the file is missing. The text is copied unchanged, a line feed
// added when it does not end in one.
func (f *file) carriedRegion() (string, error) {
	p := f.carriedPath()
	real, err := carriedInside(f.co.Root, p)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	data, err := os.ReadFile(real) // a link within the checkout is read through, as the assistant does
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read %s: %w", p, err)
	}
	text := string(data)
	for _, line := range strings.Split(text, "\n") {
		switch strings.TrimPrefix(strings.TrimSuffix(line, "\r"), "\uFEFF") {
		case Begin, End, copyBegin(f.t), copyEnd(f.t):
			return "", fmt.Errorf("%s %w", f.t.Carry, ErrCarriedMarker)
		}
	}
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	return copyBegin(f.t) + "\n" + text + copyEnd(f.t) + "\n", nil
}

// carriedPath is the file target f's file carries (Codex: AGENTS.md).
func (f *file) carriedPath() string {
	return filepath.Join(f.co.Root, filepath.Dir(filepath.FromSlash(f.name)), f.t.Carry)
}

// carriedInside returns where the carried file p really is, refusing one
// that a symbolic link leads out of the checkout root: its text would be
// copied into a file of the checkout, which may be shared or committed.
func carriedInside(root, p string) (string, error) {
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", err
	}
	top, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", fmt.Errorf("resolve %s: %w", root, err)
	}
	if rel, err := filepath.Rel(top, real); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%s is a link to %s, outside the checkout: %w", p, real, ErrCarryOutside)
	}
	return real, nil
}

// carriedPerm narrows perm to the carried file's permissions, so that the
// copy is readable by no one the original is not.
func (f *file) carriedPerm(perm os.FileMode) os.FileMode {
	if f.t.Carry == "" || f.side {
		return perm
	}
	real, err := carriedInside(f.co.Root, f.carriedPath())
	if err != nil {
		return perm
	}
	if fi, err := os.Stat(real); err == nil {
		return perm & fi.Mode().Perm()
	}
	return perm
}

// Inputs returns the files besides target t's own file in checkout that
// decide what that file is to hold: the file it carries (Codex:
// AGENTS.md) and the Gemini CLI settings files that decide whether the
// side file is read. A caller that watches them knows when the file needs
// writing again although the block did not change.
func Inputs(checkout string, t assistants.Assistant) []string {
	var files []string
	if t.Carry != "" {
		files = append(files, filepath.Join(checkout, filepath.Dir(filepath.FromSlash(t.File)), t.Carry))
	}
	if t.SideSettings != "" {
		files = append(files, filepath.Join(checkout, filepath.FromSlash(t.SideSettings)))
		if home, _ := os.UserHomeDir(); home != "" && t.UserSettings != nil {
			files = append(files, t.UserSettings(assistants.Env{Home: home}))
		}
	}
	return files
}

// copyStale reports whether old, a file that carries t.Carry, holds a
// copy region whose text is no longer t.Carry's (or t.Carry cannot be
// read).
func (f *file) copyStale(old string) bool {
	begin, end, err := findMarked(old, copyBegin(f.t), copyEnd(f.t))
	if err != nil || begin < 0 {
		return false
	}
	region, err := f.carriedRegion()
	return err != nil || old[begin:end] != region
}
