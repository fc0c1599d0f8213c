package agent

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/teammem/teammem/client/teamblock"
	"github.com/teammem/teammem/memcore"
)

// OrgFolder is an org memory synced into a folder of its own (by another
// engine), whose index the block carries after the repository's own.
type OrgFolder struct {
	// Repo is the org memory's slug (acme/.memory).
	Repo string
	// Dir is the folder's absolute path.
	Dir string
}

// orgFiles are the files whose change may change the org memories' part
// of the block: each org folder (a topic file added or removed) and its
// MEMORY.md.
func orgFiles(orgs []OrgFolder) []string {
	var out []string
	for _, o := range orgs {
		out = append(out, o.Dir, filepath.Join(o.Dir, teamblock.IndexKey))
	}
	return out
}

// orgStamp is what the org files look like now.
func orgStamp(orgs []OrgFolder) []fileID {
	files := orgFiles(orgs)
	ids := make([]fileID, len(files))
	for i, f := range files {
		ids[i] = inputID(f)
	}
	return ids
}

// orgsChanged reports whether an org folder changed since the last
// render.
func (b *blockWriter) orgsChanged() bool {
	return len(b.cfg.Orgs) > 0 && !slices.Equal(orgStamp(b.cfg.Orgs), b.orgIDs)
}

// readOrgs reads the org memories' indexes for a render, stamping them
// first so that a change during the render is seen at the next look.
func (b *blockWriter) readOrgs() []teamblock.Org {
	b.orgIDs = orgStamp(b.cfg.Orgs)
	out := make([]teamblock.Org, 0, len(b.cfg.Orgs))
	for _, o := range b.cfg.Orgs {
		index, err := memcore.SafeRead(o.Dir, teamblock.IndexKey)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			index = nil // unreadable: shown as empty rather than guessed
		}
		out = append(out, teamblock.Org{Repo: o.Repo, Dir: o.Dir, Index: string(index), Exists: regularIn(o.Dir)})
	}
	return out
}

// regularIn reports whether a key is a regular file in dir, through
// os.Root so that no link leads out of it.
func regularIn(dir string) func(key string) bool {
	return func(key string) bool {
		root, err := os.OpenRoot(dir)
		if err != nil {
			return false
		}
		defer root.Close()
		fi, err := root.Lstat(filepath.FromSlash(key))
		return err == nil && fi.Mode().IsRegular()
	}
}
