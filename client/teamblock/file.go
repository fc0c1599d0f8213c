package teamblock

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/teammem/teammem/client/assistants"
	"github.com/teammem/teammem/client/gitremote"
	"github.com/teammem/teammem/internal/atomicfile"
)

// Why a target's file is left alone.
var (
	// ErrTracked: git tracks the file, so writing to it would change the
	// repository for everyone.
	ErrTracked = errors.New("tracked by git")
	// ErrDamaged: the file holds a marker without its partner, or more
	// than one block.
	ErrDamaged = errors.New("holds a damaged teammem block")
	// ErrNotRegular: the file is a symbolic link, a folder or a device,
	// or one of its folders is not a real folder.
	ErrNotRegular = errors.New("not a regular file")
	// ErrNoRoom: what the file must carry besides the block leaves no
	// room for it in the assistant's budget.
	ErrNoRoom = errors.New("leaves no room for the team memory block in the assistant's size budget")
	// ErrCarriedMarker: the file a target carries (AGENTS.md) holds a
	// teammem marker line, so a copy of it could not be told apart from
	// the block.
	ErrCarriedMarker = errors.New("holds a teammem marker line")
	// ErrCarryOutside: the file a target carries is a symbolic link that
	// leads out of the checkout; its text is not copied.
	ErrCarryOutside = errors.New("the file to carry leads out of the checkout")
	// ErrSettings: the side file would not be read, and the setting that
	// names it is the user's to change (Gemini CLI's context.fileName).
	ErrSettings = errors.New("does not name the team memory file in context.fileName")
)

// Write puts block (a rendered block, markers included) into target t's
// file in checkout: in place of the block already there, else at the top
// (after a byte order mark and a frontmatter) or, for a target that says
// so, at the end; a file the agent creates starts with the target's
// frontmatter. Everything outside the markers is kept byte for byte; a
// target that carries another file (Codex: AGENTS.md) keeps an unchanged
// copy of that file's text in a marked region of a file of its own. The
// block is cut to the target's budget. The file is written atomically and
// only when its content changes; before it is first written it is added
// to the repository's info/exclude unless git already ignores it. It
// reports whether the file was written; an error wraps ErrTracked,
// ErrDamaged, ErrNotRegular, ErrNoRoom, ErrCarriedMarker or ErrSettings
// when the file is left alone for that reason.
func Write(checkout string, t assistants.Assistant, block string) (bool, error) {
	f, err := open(checkout, t)
	if err != nil {
		return false, err
	}
	if f.side {
		if err := ensureGeminiSettings(f); err != nil {
			return false, err
		}
	}
	return f.update(block)
}

// Remove takes the block out of target t's file in checkout, keeping the
// rest byte for byte, and deletes a file (and the folders it made) that
// holds nothing else the agent did not write; the lines Write added to the
// repository's info/exclude for a file it deleted go too, once no other
// worktree holds that file (unexcludeFromGit). A missing file or block,
// or a tracked file, is not an error. It reports whether a file changed.
func Remove(checkout string, t assistants.Assistant) (bool, error) {
	co, err := gitremote.OpenCheckout(checkout)
	if err != nil {
		return false, err
	}
	changed := false
	var errs []error
	for _, name := range []string{t.File, t.Side} {
		if name == "" {
			continue
		}
		if tracked, err := co.Tracked(name); err != nil || tracked {
			errs = append(errs, err)
			continue
		}
		if realFolders(co.Root, name) != nil {
			continue // the agent never wrote through a link: nothing of its own there
		}
		f := &file{co: co, t: t, name: name, side: name == t.Side}
		did, err := f.update("")
		if errors.Is(err, ErrNotRegular) {
			err = nil // nor into a file that is not a regular one
		}
		changed = changed || did
		errs = append(errs, err)
	}
	names := []string{t.File, t.Side}
	if t.Side != "" {
		did, err := removeGeminiSettings(co)
		changed = changed || did
		errs = append(errs, err)
		names = append(names, t.SideSettings)
	}
	for _, name := range names {
		if name == "" {
			continue
		}
		did, err := unexcludeFromGit(co, name)
		changed = changed || did
		errs = append(errs, err)
	}
	return changed, errors.Join(errs...)
}

// Current reports whether target t's file in checkout holds exactly what
// Write(checkout, t, block) would leave there ("": what Remove would),
// reading files only (not git's index); false when it cannot tell.
func Current(checkout string, t assistants.Assistant, block string) bool {
	if block == "" {
		for _, name := range []string{t.File, t.Side} {
			if name == "" {
				continue
			}
			old, err := readRegular(filepath.Join(checkout, filepath.FromSlash(name)))
			if errors.Is(err, ErrNotRegular) {
				continue // never the agent's (Remove passes over it too)
			}
			if err != nil {
				return false
			}
			if b, _, err := findBlock(old); err != nil || b >= 0 {
				return false
			}
		}
		return t.Side == "" || !isOurGeminiSettings(checkout)
	}
	// Git is not consulted (an idle agent calls this every cycle): the
	// side file is the one in use when it exists.
	f := &file{co: gitremote.Checkout{Root: checkout}, t: t, name: t.File}
	if t.Side != "" {
		if _, err := os.Lstat(filepath.Join(checkout, filepath.FromSlash(t.Side))); err == nil {
			f.name, f.side = t.Side, true
		}
	}
	if realFolders(checkout, f.name) != nil || f.side && geminiSettingsNames(f) != nil {
		return false
	}
	old, err := f.read()
	if err != nil {
		return false
	}
	next, err := f.compose(old, block)
	return err == nil && next == old
}

// FileState is where one target's block stands in a checkout, for status.
type FileState struct {
	// File is the file that holds (or would hold) the block, a slash path
	// from the checkout's top.
	File string `json:"file"`
	// State is "in place", "missing", or why the agent leaves the file
	// alone; Fix says how to let it write the file again.
	State string `json:"state"`
	Fix   string `json:"fix,omitempty"`
}

// State says whether target t's file in checkout holds the block.
func State(checkout string, t assistants.Assistant) FileState {
	st := FileState{File: t.File}
	f, err := open(checkout, t)
	if err == nil {
		st.File = f.name
		if f.side {
			err = geminiSettingsNames(f)
		}
	}
	var data string
	if err == nil {
		data, err = f.read()
	}
	begin, end := -1, -1
	if err == nil {
		if begin, end, err = findBlock(data); err != nil {
			err = fmt.Errorf("%s %w", f.name, err)
		}
	}
	switch {
	case err != nil:
		st.State, st.Fix = err.Error(), Fix(t, err)
	case begin < 0:
		st.State = "missing"
	default:
		return f.placed(st, data, data[begin:end])
	}
	return st
}

// placed is State for a file that holds block: "in place" when the file
// is what writing that block now would leave (its copy of the file it
// carries current, the settings that make the assistant read it still
// saying so), "out of date" otherwise; an error is said as such.
func (f *file) placed(st FileState, data, block string) FileState {
	next, err := f.compose(data, block)
	switch {
	case err != nil:
		st.State, st.Fix = err.Error(), Fix(f.t, err)
	case next == data:
		st.State = "in place"
	case f.t.Carry != "" && !f.side && f.copyStale(data):
		st.State, st.Fix = "out of date: its copy of "+f.t.Carry+" is not "+f.t.Carry+" as it is now", rewriteFix
	default:
		st.State, st.Fix = "out of date: not what the agent would write now", rewriteFix
	}
	return st
}

// rewriteFix is what to do about a block file that is out of date.
const rewriteFix = "a running agent rewrites it within seconds; without one, run `teammem-agent sync`"

// Fix tells a person how to let the agent write target t's file again
// after err.
func Fix(t assistants.Assistant, err error) string {
	off := "or leave " + t.Name + " out of --assistants (or run with --no-inject)"
	switch {
	case errors.Is(err, ErrTracked):
		return "untrack it with `git rm --cached " + t.File + "` and commit (the file stays on disk), " + off
	case errors.Is(err, ErrDamaged):
		return "delete the teammem marker lines and what is between them; the agent writes the block again"
	case errors.Is(err, ErrNotRegular):
		return "make " + t.File + " a regular file in real folders, " + off
	case errors.Is(err, ErrNoRoom):
		return "shorten " + t.Carry + ", " + off
	case errors.Is(err, ErrCarriedMarker):
		return "take the teammem marker lines out of " + t.Carry
	case errors.Is(err, ErrSettings):
		return fmt.Sprintf("add %q to context.fileName in that settings file (next to %q), %s", t.Side, t.File, off)
	}
	return ""
}

// file is one target's file in one checkout.
type file struct {
	co gitremote.Checkout
	t  assistants.Assistant
	// name is the file that carries the block, a slash path from the
	// checkout's top: t.File, or t.Side when side is set (t.File is
	// tracked).
	name string
	side bool
}

// open finds where target t's block goes in checkout: its file, or its
// side file when the file is tracked and the target has one. A tracked
// file without a side file, or a file below a folder that is not a real
// folder, is refused.
func open(checkout string, t assistants.Assistant) (*file, error) {
	co, err := gitremote.OpenCheckout(checkout)
	if err != nil {
		return nil, err
	}
	f := &file{co: co, t: t, name: t.File}
	tracked, err := co.Tracked(t.File)
	if err != nil {
		return nil, err
	}
	if tracked && t.Side != "" {
		f.name, f.side = t.Side, true
		tracked, err = co.Tracked(t.Side)
		if err != nil {
			return nil, err
		}
	}
	if tracked {
		return nil, fmt.Errorf("%s in %s is %w", f.name, checkout, ErrTracked)
	}
	if err := realFolders(co.Root, f.name); err != nil {
		return nil, err
	}
	return f, nil
}

// path is the file's path on disk.
func (f *file) path() string { return filepath.Join(f.co.Root, filepath.FromSlash(f.name)) }

// read reads the file; a missing file is "", anything but a regular file
// an error wrapping ErrNotRegular.
func (f *file) read() (string, error) { return readRegular(f.path()) }

// compose returns the file's content with block in it ("": without it),
// "" when the file is to be deleted.
func (f *file) compose(old, block string) (string, error) {
	if block != "" {
		block = guardHashRefs(f.t, block)
	}
	next, err := f.place(old, block)
	if err != nil || block == "" || f.t.Budget == 0 || f.t.Size(next) <= f.t.Budget {
		return next, err
	}
	room := f.t.Budget - (f.t.Size(next) - f.t.Size(block))
	cut, ok := cutBlock(block, room, f.t)
	if !ok {
		what := f.name
		if f.t.Carry != "" {
			what = f.t.Carry
		}
		return "", fmt.Errorf("%s %w (%d %s)", what, ErrNoRoom, f.t.Budget, f.t.BudgetUnit())
	}
	return f.place(old, cut)
}

// place splices block into old: the target's own way when it carries a
// file, else at the top or end, a new file getting the frontmatter.
func (f *file) place(old, block string) (string, error) {
	if f.t.Carry != "" && !f.side {
		if next, ours, err := f.placeCarrying(old, block); ours || err != nil {
			return next, err
		}
	}
	next, err := spliceBlockAt(old, block, f.t.AtEnd)
	if err != nil {
		return "", err
	}
	switch {
	case old == "" && block != "":
		return f.t.Frontmatter + block, nil
	case block == "" && f.t.Frontmatter != "" && next == f.t.Frontmatter:
		return "", nil // only what the agent wrote is left
	}
	return next, nil
}

// update applies compose to the file and writes the result when it
// differs, atomically; a file that changed while it was composed is read
// and composed again. An empty result deletes the file the agent wrote.
func (f *file) update(block string) (bool, error) {
	p := f.path()
	for attempt := 0; ; attempt++ {
		old, err := f.read()
		if err != nil {
			return false, err
		}
		next, err := f.compose(old, block)
		if err != nil {
			return false, fmt.Errorf("%s in %s: %w", f.name, f.co.Root, err)
		}
		if next == old {
			return false, nil
		}
		if next == "" {
			return true, removeIfUnchanged(f.co.Root, p, old)
		}
		if block != "" {
			if err := excludeFromGit(f.co, f.name); err != nil {
				return false, err
			}
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return false, fmt.Errorf("write %s: %w", p, err)
			}
		}
		perm := os.FileMode(0o644)
		if fi, err := os.Stat(p); err == nil {
			perm = fi.Mode().Perm()
		}
		perm = f.carriedPerm(perm)
		now, err := f.read()
		if err != nil {
			return false, err
		}
		if now != old { // edited meanwhile: start again, never write over it
			if attempt < 3 {
				continue
			}
			return false, fmt.Errorf("%s in %s keeps changing while the block is updated; left as it is until the next cycle", f.name, f.co.Root)
		}
		if err := atomicfile.Write(p, perm, atomicfile.Bytes([]byte(next))); err != nil {
			return false, fmt.Errorf("write %s: %w", p, err)
		}
		return true, nil
	}
}

// readRegular reads a file; a missing file is "", anything but a regular
// file an error wrapping ErrNotRegular.
func readRegular(p string) (string, error) {
	fi, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read %s: %w", p, err)
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%s is %w", p, ErrNotRegular)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", p, err)
	}
	return string(data), nil
}

// realFolders refuses a file whose folders below root include one that is
// not a real folder (a symbolic link could lead the write out of the
// checkout). Missing folders are fine: the agent makes them.
func realFolders(root, name string) error {
	dir := root
	for _, part := range strings.Split(path.Dir(name), "/") {
		if part == "." {
			break
		}
		dir = filepath.Join(dir, part)
		fi, err := os.Lstat(dir)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", dir, err)
		}
		if !fi.IsDir() {
			return fmt.Errorf("%s is %w (a folder of %s)", dir, ErrNotRegular, name)
		}
	}
	return nil
}

// removeIfUnchanged deletes p unless it no longer holds old, then the
// folders between it and root that are left empty.
func removeIfUnchanged(root, p, old string) error {
	data, err := os.ReadFile(p)
	if err != nil || !bytes.Equal(data, []byte(old)) {
		return nil // gone or edited: leave it
	}
	if err := os.Remove(p); err != nil {
		return fmt.Errorf("remove %s: %w", p, err)
	}
	removeEmptyFolders(root, filepath.Dir(p))
	return nil
}

// removeEmptyFolders removes dir and its parents below root while they
// are empty.
func removeEmptyFolders(root, dir string) {
	for dir != root && strings.HasPrefix(dir, root+string(filepath.Separator)) {
		if os.Remove(dir) != nil { // not empty (or gone): stop
			return
		}
		dir = filepath.Dir(dir)
	}
}
