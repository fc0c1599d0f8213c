// Package gitremote finds the git working tree around a directory and turns
// its remote into the repository's canonical slug (spec/agent.md §1,
// spec/protocol.md §1). It reads the repository with go-git, never a git
// process, and understands linked worktrees (their remotes live in the main
// repository's common directory).
//
// The functions are safe for concurrent use; they only read files.
package gitremote

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
)

// Errors wrapped by the functions of this package.
var (
	// ErrNotRepo: the directory is not inside a git working tree.
	ErrNotRepo = errors.New("not inside a git working tree")
	// ErrNoRemote: the repository has no remote (or a remote without URL).
	ErrNoRemote = errors.New("repository has no remote")
	// ErrAmbiguousRemote: several remotes, none of them named origin.
	ErrAmbiguousRemote = errors.New("several remotes and none named origin")
	// ErrLocalRemote: the remote is a local path or file:// URL, which names
	// no shared repository.
	ErrLocalRemote = errors.New("remote is a local path, not a hosted repository")
)

// OriginRemote is the remote preferred when there are several.
const OriginRemote = "origin"

// FindRepo returns the root of the git working tree containing dir: the
// folder holding .git (a folder in a main checkout, a file in a linked
// worktree). Errors: ErrNotRepo when there is none, or the bare repository
// has no working tree; dir missing or unreadable.
func FindRepo(dir string) (root string, err error) {
	repo, err := open(dir)
	if err != nil {
		return "", fmt.Errorf("find repository of %s: %w", dir, err)
	}
	wt, err := repo.Worktree()
	if err != nil {
		return "", fmt.Errorf("find repository of %s: %w: %w", dir, ErrNotRepo, err)
	}
	return wt.Filesystem.Root(), nil
}

// Remote returns the remote that names root's repository: "origin" when it
// exists, else the only remote, with its first URL (after the repository's
// url.<base>.insteadOf rules). Errors: ErrNotRepo, ErrNoRemote,
// ErrAmbiguousRemote (naming the remotes).
func Remote(root string) (name, url string, err error) {
	repo, err := open(root)
	if err != nil {
		return "", "", fmt.Errorf("read remote of %s: %w", root, err)
	}
	cfg, err := repo.Config()
	if err != nil {
		return "", "", fmt.Errorf("read remote of %s: %w", root, err)
	}
	rc, err := pickRemote(cfg.Remotes)
	if err != nil {
		return "", "", fmt.Errorf("read remote of %s: %w", root, err)
	}
	if len(rc.URLs) == 0 || strings.TrimSpace(rc.URLs[0]) == "" {
		return "", "", fmt.Errorf("read remote of %s: %w: remote %q has no URL", root, ErrNoRemote, rc.Name)
	}
	return rc.Name, rc.URLs[0], nil
}

// Slug returns the canonical slug of the repository containing dir, from its
// remote (see Remote and CanonicalFromURL).
func Slug(dir string) (string, error) {
	root, err := FindRepo(dir)
	if err != nil {
		return "", err
	}
	name, url, err := Remote(root)
	if err != nil {
		return "", err
	}
	slug, err := CanonicalFromURL(url)
	if err != nil {
		return "", fmt.Errorf("slug of remote %q in %s: %w", name, root, err)
	}
	return slug, nil
}

// open opens the repository containing dir, searching upwards, with the
// common directory of linked worktrees enabled.
func open(dir string) (*git.Repository, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", abs)
	}
	repo, err := git.PlainOpenWithOptions(abs, &git.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
	if errors.Is(err, git.ErrRepositoryNotExists) {
		return nil, ErrNotRepo
	}
	return repo, err
}

// pickRemote chooses origin, else the only remote.
func pickRemote(remotes map[string]*config.RemoteConfig) (*config.RemoteConfig, error) {
	if rc, ok := remotes[OriginRemote]; ok {
		return rc, nil
	}
	switch len(remotes) {
	case 0:
		return nil, ErrNoRemote
	case 1:
		for _, rc := range remotes {
			return rc, nil
		}
	}
	names := make([]string, 0, len(remotes))
	for name := range remotes {
		names = append(names, name)
	}
	slices.Sort(names)
	return nil, fmt.Errorf("%w (%s); pass the slug explicitly", ErrAmbiguousRemote, strings.Join(names, ", "))
}

// Head returns the commit HEAD of the working tree containing dir names
// ("" before the first commit), reading only its references. Errors:
// ErrNotRepo; an unreadable repository.
func Head(dir string) (string, error) {
	repo, err := open(dir)
	if err != nil {
		return "", fmt.Errorf("read HEAD of %s: %w", dir, err)
	}
	ref, err := repo.Head()
	switch {
	case errors.Is(err, plumbing.ErrReferenceNotFound):
		return "", nil
	case err != nil:
		return "", fmt.Errorf("read HEAD of %s: %w", dir, err)
	}
	return ref.Hash().String(), nil
}
