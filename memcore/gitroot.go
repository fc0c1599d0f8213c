package memcore

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// gitMarker is the name of the folder (or, in worktrees and submodules, the
// file) that marks a git working tree's root.
const gitMarker = ".git"

// ErrRelativePath is wrapped by FindGitRoot and CanonicalGitRoot for a path
// that is not absolute: they never fall back on the process's working
// directory, which a library cannot know to be the caller's.
var ErrRelativePath = errors.New("path is not absolute")

// requireAbs returns p cleaned, or an error wrapping ErrRelativePath.
func requireAbs(verb, p string) (string, error) {
	if !filepath.IsAbs(p) {
		return "", fmt.Errorf("%s: %w: %q", verb, ErrRelativePath, p)
	}
	return filepath.Clean(p), nil
}

// FindGitRoot walks up from dir to the filesystem root and returns the first
// folder holding a ".git" entry (a folder in a main checkout, a file in a
// worktree or submodule). ok is false when there is none. err reports a
// failure to inspect a folder other than the entry not existing, and wraps
// ErrRelativePath when dir is not absolute.
func FindGitRoot(dir string) (root string, ok bool, err error) {
	if dir, err = requireAbs("find git root", dir); err != nil {
		return "", false, err
	}
	for {
		_, err := os.Lstat(filepath.Join(dir, gitMarker))
		switch {
		case err == nil:
			return dir, true, nil
		case !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, fs.ErrPermission):
			return "", false, fmt.Errorf("find git root: %w", err)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false, nil
		}
		dir = parent
	}
}

// CanonicalGitRoot returns the main checkout's root for a git root, so that
// every worktree of one repository maps to one memory folder. It reads files
// only (no git process):
//
//   - root/.git is a folder: root is the main checkout; returned as is.
//   - root/.git is a file "gitdir: <dir>": a linked worktree when <dir> holds a
//     "commondir" file. The common dir is <dir>/<commondir>; the main root is
//     its parent when it is named ".git", else the common dir itself (a bare
//     repository). A file without commondir (a submodule) leaves root as is.
//
// The link is trusted only when it is consistent: <dir> must sit in
// <common>/worktrees/ and its "gitdir" back-link must name root/.git. A
// repository cannot otherwise claim another project's memory folder by
// writing a forged .git file; an inconsistent link yields root itself. root
// must be absolute (else the error wraps ErrRelativePath).
func CanonicalGitRoot(root string) (string, error) {
	root, err := requireAbs("canonical git root", root)
	if err != nil {
		return "", err
	}
	marker := filepath.Join(root, gitMarker)
	info, err := os.Stat(marker)
	if err != nil {
		return "", fmt.Errorf("canonical git root: %w", err)
	}
	if info.IsDir() {
		return root, nil
	}
	gitDir, err := readGitdirFile(marker)
	if err != nil {
		return "", fmt.Errorf("canonical git root: %w", err)
	}
	common, ok := worktreeCommonDir(gitDir)
	if !ok || !backLinkMatches(gitDir, common, marker) {
		return root, nil
	}
	if filepath.Base(common) == gitMarker {
		return filepath.Dir(common), nil
	}
	return common, nil
}

// readGitdirFile reads a ".git" file and returns the absolute git dir it
// points to.
func readGitdirFile(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	line, _, _ := strings.Cut(string(data), "\n")
	target, found := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
	target = strings.TrimSpace(target)
	if !found || target == "" {
		return "", fmt.Errorf("%s: not a gitdir link", path)
	}
	return absFrom(filepath.Dir(path), target), nil
}

// worktreeCommonDir reads <gitDir>/commondir; ok is false when there is none
// (a submodule or a plain separate git dir).
func worktreeCommonDir(gitDir string) (string, bool) {
	data, err := os.ReadFile(filepath.Join(gitDir, "commondir"))
	if err != nil {
		return "", false
	}
	rel := strings.TrimSpace(string(data))
	if rel == "" {
		return "", false
	}
	return absFrom(gitDir, rel), true
}

// backLinkMatches checks that gitDir is <common>/worktrees/<name> and that its
// "gitdir" file points back at marker (the worktree's .git file).
func backLinkMatches(gitDir, common, marker string) bool {
	if !samePath(filepath.Dir(gitDir), filepath.Join(common, "worktrees")) {
		return false
	}
	data, err := os.ReadFile(filepath.Join(gitDir, "gitdir"))
	if err != nil {
		return false
	}
	back := absFrom(gitDir, strings.TrimSpace(string(data)))
	return samePath(back, marker)
}

// absFrom resolves p against base unless it is already absolute.
func absFrom(base, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(base, p)
}

// samePath compares two paths after resolving symlinks where possible.
func samePath(a, b string) bool {
	return realOrClean(a) == realOrClean(b)
}

// realOrClean returns the symlink-resolved path, or the cleaned path when it
// cannot be resolved.
func realOrClean(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}
