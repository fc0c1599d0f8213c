package writeplan

import (
	"testing"
	"time"

	"github.com/teammem/teammem/server"
)

// TestMetaCommitAlreadyFilled: a store may read a version in SQL (another
// request saw the commit) before it records the plans of that commit; the
// cache then already reflects them and keeps serving that version.
func TestMetaCommitAlreadyFilled(t *testing.T) {
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	st := server.RepoState{Repo: "acme/api", Version: 2, Checksum: "sha256:two", Entries: 1}
	var m Meta
	m.Fill(m.Generation(), server.Snapshot{RepoState: st,
		Live: []server.Entry{{Key: "a.md", Checksum: "sha256:a", Size: 1, Version: 2, UpdatedAt: at}}})
	m.Commit([]*Plan{{Repo: "acme/api", Version: 2, At: at,
		Changes: []Change{{Op: server.OpPut, Key: "a.md", Checksum: "sha256:a", Size: 1}}}})
	snap, ok := m.Snapshot(st)
	if !ok || len(snap.Live) != 1 || snap.Live[0].Key != "a.md" {
		t.Fatalf("after recording a commit it had already read: %+v, %v", snap, ok)
	}
	// A plan further ahead than the version after the cached one drops it.
	m.Commit([]*Plan{{Repo: "acme/api", Version: 4, At: at}})
	if _, ok := m.Snapshot(server.RepoState{Repo: "acme/api", Version: 4}); ok {
		t.Error("a version skipped over was served")
	}
}
