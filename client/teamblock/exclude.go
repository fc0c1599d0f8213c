package teamblock

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/teammem/teammem/client/gitremote"
	"github.com/teammem/teammem/internal/atomicfile"
)

// excludeLines are the lines excludeFromGit adds to info/exclude for name,
// and the only ones unexcludeFromGit takes out.
func excludeLines(name string) string {
	return "# teammem-agent keeps this file in every worktree, never shared: " + name + "\n/" + name + "\n"
}

// excludeFromGit adds name (a slash path from the checkout's top) to the
// repository's info/exclude (shared by all its worktrees) unless git
// already ignores it there. A .gitignore is never edited.
func excludeFromGit(co gitremote.Checkout, name string) error {
	if co.Ignored(name) {
		return nil
	}
	path := co.ExcludeFile()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("keep %s out of git: %w", name, err)
	}
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("keep %s out of git: %w", name, err)
	}
	add := excludeLines(name)
	if len(old) > 0 && !bytes.HasSuffix(old, []byte("\n")) {
		add = "\n" + add
	}
	if err := rewriteExclude(path, string(old)+add); err != nil {
		return fmt.Errorf("keep %s out of git: %w", name, err)
	}
	return nil
}

// unexcludeFromGit takes out of the repository's info/exclude the lines
// excludeFromGit added for name, once no worktree of the repository holds
// that file: they keep every worktree's copy out of git, so they stay
// while one is left (a file Remove kept for the user's text in it, the
// block of a worktree the agent does not serve). Every other line stays
// byte for byte, and lines of that shape a person edited are theirs. It
// reports whether info/exclude changed.
func unexcludeFromGit(co gitremote.Checkout, name string) (bool, error) {
	path := co.ExcludeFile()
	old, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("let git see %s again: %w", name, err)
	}
	next := withoutExcludeLines(string(old), name)
	if next == string(old) {
		return false, nil
	}
	roots, err := co.Worktrees()
	if err != nil {
		return false, fmt.Errorf("let git see %s again: %w", name, err)
	}
	for _, root := range append(roots, co.Root) {
		if _, err := os.Lstat(filepath.Join(root, filepath.FromSlash(name))); !errors.Is(err, fs.ErrNotExist) {
			return false, nil // still there, or cannot tell: keep it out of git
		}
	}
	if err := rewriteExclude(path, next); err != nil {
		return false, fmt.Errorf("let git see %s again: %w", name, err)
	}
	return true, nil
}

// withoutExcludeLines returns data without each whole-line occurrence of
// excludeLines(name).
func withoutExcludeLines(data, name string) string {
	lines := excludeLines(name)
	var b strings.Builder
	for data != "" {
		if strings.HasPrefix(data, lines) {
			data = data[len(lines):]
			continue
		}
		line, rest, _ := strings.Cut(data, "\n")
		b.WriteString(line)
		if len(line) < len(data) {
			b.WriteByte('\n')
		}
		data = rest
	}
	return b.String()
}

// rewriteExclude writes info/exclude atomically, keeping its mode.
func rewriteExclude(path, content string) error {
	perm := os.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		perm = fi.Mode().Perm()
	}
	return atomicfile.Write(path, perm, atomicfile.Bytes([]byte(content)))
}
