package refcheck

import (
	"fmt"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"github.com/go-git/go-git/v5/storage/filesystem/dotgit"

	"github.com/teammem/teammem/client/gitremote"
)

// ErrNotRepo: the folder is not inside a git checkout.
var ErrNotRepo = gitremote.ErrNotRepo

// openRepo opens the repository of the checkout around dir: its own git
// folder (a linked worktree's HEAD is its own) over the common one (the
// objects), with pack files kept open until the storage is closed — a
// check reads thousands of objects, and reopening the pack for each one
// would cost more than the reading.
func openRepo(dir string) (*git.Repository, *filesystem.Storage, error) {
	root, err := gitremote.FindRepo(dir)
	if err != nil {
		return nil, nil, err
	}
	co, err := gitremote.OpenCheckout(root)
	if err != nil {
		return nil, nil, err
	}
	var common billy.Filesystem
	if co.CommonDir != co.GitDir {
		common = osfs.New(co.CommonDir)
	}
	fs := dotgit.NewRepositoryFilesystem(osfs.New(co.GitDir), common)
	s := filesystem.NewStorageWithOptions(fs, cache.NewObjectLRUDefault(), filesystem.Options{KeepDescriptors: true})
	repo, err := git.Open(s, osfs.New(root))
	if err != nil {
		return nil, nil, fmt.Errorf("open repository of %s: %w", root, err)
	}
	return repo, s, nil
}
