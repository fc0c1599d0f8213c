package session

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/teammem/teammem/memcore"
	"github.com/teammem/teammem/memcore/internal/memtest"
)

// TestAgentSnapshotRefusesSymlinksOut plants, in a checked-in .claude folder,
// the symlinks of the review's two reproductions (and their cousins) and runs
// every snapshot operation: none may write or delete anything outside the
// working directory.
func TestAgentSnapshotRefusesSymlinksOut(t *testing.T) {
	tests := []struct {
		name  string
		links map[string]string // link (relative to cwd) → target
	}{
		{"synced record links to a dot-file", map[string]string{
			".claude/agent-memory/reviewer/.snapshot-synced.json": "../../../../home/.bashrc",
		}},
		{"memory folder links out", map[string]string{
			".claude/agent-memory/reviewer": "../../../home/Documents",
		}},
		{"memory parent links out", map[string]string{
			".claude/agent-memory": "../../home/Documents",
		}},
		{"snapshot folder links out", map[string]string{
			".claude/agent-memory-snapshots/reviewer": "../../../home/Documents",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := memTestEnv(t, nil)
			outside := filepath.Dir(env.Home) // holds home, managed and work
			memtest.Write(t, filepath.Join(env.Home, ".bashrc"), "export PATH=/usr/bin\n")
			memtest.Write(t, filepath.Join(env.Home, "Documents", "thesis.md"), "chapter 1\n")
			memtest.Write(t, filepath.Join(env.Home, "Documents", "reviewer", "notes.md"), "notes\n")
			memtest.Write(t, filepath.Join(env.Cwd, ".claude", "agent-memory-snapshots", "reviewer", "x.md"), "from the repo\n")
			for link, target := range tt.links {
				plantSymlink(t, filepath.Join(env.Cwd, filepath.FromSlash(link)), target)
			}
			before := treeOutside(t, outside, env.Cwd)

			_, checkErr := CheckAgentSnapshot(env, "reviewer", AgentScopeProject)
			_, initErr := InitializeFromSnapshot(env, "reviewer", AgentScopeProject)
			_, replaceErr := ReplaceFromSnapshot(env, "reviewer", AgentScopeProject)
			markErr := MarkSnapshotSynced(env, "reviewer", AgentScopeProject)

			if diff := cmp.Diff(before, treeOutside(t, outside, env.Cwd)); diff != "" {
				t.Errorf("files outside the working directory changed (-before +after):\n%s", diff)
			}
			for op, err := range map[string]error{"check": checkErr, "initialize": initErr, "replace": replaceErr, "mark": markErr} {
				if op == "check" && tt.name == "synced record links to a dot-file" {
					continue // reading the record does not follow the link either; the memory is empty
				}
				if !errors.Is(err, memcore.ErrUnsafePath) {
					t.Errorf("%s: err = %v, want ErrUnsafePath", op, err)
				}
			}
		})
	}
}

// plantSymlink creates a symlink at link (and its folder), or skips the test
// where the platform does not allow it.
func plantSymlink(t *testing.T, link, target string) {
	t.Helper()
	memtest.Mkdir(t, filepath.Dir(link))
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("cannot create symlinks here: %v", err)
	}
}

// treeOutside maps every file below root but outside skip to its content
// (symlinks to their target), for before/after comparison.
func treeOutside(t *testing.T, root, skip string) map[string]string {
	t.Helper()
	tree := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case p == skip:
			return filepath.SkipDir
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			tree[p] = "-> " + target
			return err
		case d.IsDir():
			tree[p] = "dir"
			return nil
		}
		data, err := os.ReadFile(p)
		tree[p] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return tree
}
