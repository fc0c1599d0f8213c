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
	p := filepath.Join(f.co.Root, filepath.Dir(filepath.FromSlash(f.name)), f.t.Carry)
	data, err := os.ReadFile(p) // a symbolic link is read through, as the assistant does
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
