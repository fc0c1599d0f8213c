package agent

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/client"
)

// serverEdit applies req to the fake server as another writer would.
func (r *rig) serverEdit(req api.PutRequest) {
	r.remote.mu.Lock()
	r.remote.apply(req)
	r.remote.mu.Unlock()
}

// TestEngineFailedScanChangesNothing: when a file cannot be read, the cycle
// fails with ErrFolderUnavailable and neither a local edit, nor a new local
// file, nor the server is touched; once the folder reads again, the edits
// are merged as usual.
func TestEngineFailedScanChangesNothing(t *testing.T) {
	r := newRig(t, map[string]string{"a.md": "a\n", "gone.md": "g\n"}, nil, nil)
	r.sync(t)
	writeTree(t, r.dir, map[string]string{"a.md": "mine\n", "n.md": "local new\n", "locked.md": "x\n"})
	r.serverEdit(api.PutRequest{Entries: map[string]string{"a.md": "theirs\n", "n.md": "server new\n"},
		SoftDeleteKeys: []string{"gone.md"}})
	puts := len(r.remote.puts)
	r.engine.local.read = func(fsys fs.FS, name string) ([]byte, error) {
		if name == "locked.md" {
			return nil, fs.ErrPermission
		}
		return fs.ReadFile(fsys, name)
	}
	_, err := r.engine.Sync(context.Background())
	if !errors.Is(err, ErrFolderUnavailable) {
		t.Fatalf("Sync = %v, want ErrFolderUnavailable", err)
	}
	want := map[string]string{"a.md": "mine\n", "n.md": "local new\n", "locked.md": "x\n", "gone.md": "g\n"}
	if diff := cmp.Diff(want, r.local(t)); diff != "" {
		t.Errorf("local after a failed scan (-want +got):\n%s", diff)
	}
	if _, ok := r.engine.cfg.Journal.Content("gone.md"); !ok {
		t.Error("journal forgot gone.md after a failed scan")
	}
	if len(r.remote.puts) != puts {
		t.Errorf("pushed %d times after a failed scan", len(r.remote.puts)-puts)
	}
	r.engine.local.read = r.engine.local.readLimited
	rep := r.sync(t)
	if len(rep.Conflicts) != 2 {
		t.Errorf("conflicts = %q, want a.md's and n.md's", rep.Conflicts)
	}
	if _, ok := r.remote.snapshot()["gone.md"]; ok {
		t.Error("gone.md pushed back")
	}
}

// TestEngineVanishedFileIsNotAScanFailure: a file removed between the
// listing and its read is absent for this cycle, not a failed scan: the
// other files are pushed.
func TestEngineVanishedFileIsNotAScanFailure(t *testing.T) {
	r := newRig(t, map[string]string{"a.md": "a\n"}, map[string]string{"b.md": "b\n", "v.md": "v\n"}, nil)
	r.engine.local.read = func(fsys fs.FS, name string) ([]byte, error) {
		if name == "v.md" {
			os.Remove(filepath.Join(r.dir, "v.md"))
			return nil, fmt.Errorf("open v.md: %w", fs.ErrNotExist)
		}
		return fs.ReadFile(fsys, name)
	}
	r.sync(t)
	if diff := cmp.Diff(map[string]string{"a.md": "a\n", "b.md": "b\n"}, r.remote.snapshot()); diff != "" {
		t.Errorf("server (-want +got):\n%s", diff)
	}
}

// TestEngineLeavesFilesEditedAfterTheScan: a file saved after the scan and
// before the engine writes, deletes or merges it keeps the edit; the key
// is planned again, and the edit ends up on the server.
func TestEngineLeavesFilesEditedAfterTheScan(t *testing.T) {
	tests := []struct {
		name   string
		server api.PutRequest // the server's change after the first sync
		local  string         // the local change before the scan ("" none)
	}{
		{"server edit over an unchanged file", api.PutRequest{Entries: map[string]string{"a.md": "theirs\n"}}, ""},
		{"server deletion of an unchanged file", api.PutRequest{SoftDeleteKeys: []string{"a.md"}}, ""},
		{"merge", api.PutRequest{Entries: map[string]string{"a.md": "a\nb\nTHEIRS\n"}}, "MINE\nb\nc\n"},
		{"new on the server, created locally", api.PutRequest{Entries: map[string]string{"new.md": "theirs\n"}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t, map[string]string{"a.md": "a\nb\nc\n"}, nil, nil)
			r.sync(t)
			r.serverEdit(tt.server)
			if tt.local != "" {
				writeTree(t, r.dir, map[string]string{"a.md": tt.local})
			}
			key := "a.md"
			if _, ok := tt.server.Entries["new.md"]; ok {
				key = "new.md"
			}
			late := "late edit\n"
			once := false
			r.engine.local.read = func(fsys fs.FS, name string) ([]byte, error) {
				data, err := fs.ReadFile(fsys, name)
				if !once { // the user saves right after the scan read the folder
					once = true
					writeTree(t, r.dir, map[string]string{key: late})
				}
				return data, err
			}
			rep := r.sync(t)
			found := false
			for _, name := range append(rep.Conflicts, key) {
				data, _ := os.ReadFile(filepath.Join(r.dir, name))
				found = found || string(data) == late
			}
			if !found {
				t.Errorf("the late edit of %s is gone: local %q", key, r.local(t))
			}
			if got := r.remote.snapshot()[key]; got != late && len(rep.Conflicts) == 0 {
				t.Errorf("server %s = %q, want the late edit", key, got)
			}
		})
	}
}

// TestEngineJournalPerFolder: two clones of one repo share the state
// folder; the older clone, which lacks a key the first one pushed, must
// not soft-delete it. The same folder reached through a symbolic link uses
// the same journal.
func TestEngineJournalPerFolder(t *testing.T) {
	r := newRig(t, map[string]string{"a.md": "a\n"}, map[string]string{"b.md": "b\n"}, nil)
	r.sync(t)
	other := t.TempDir()
	writeTree(t, other, map[string]string{"a.md": "a\n"}) // an older clone: no b.md
	clone := &rig{dir: other, state: r.state, remote: r.remote}
	clone.engine = clone.newEngine(t, nil)
	clone.sync(t)
	want := map[string]string{"a.md": "a\n", "b.md": "b\n"}
	if diff := cmp.Diff(want, r.remote.snapshot()); diff != "" {
		t.Errorf("server after the other clone synced (-want +got):\n%s", diff)
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(r.dir, link); err != nil {
		t.Fatal(err)
	}
	j, err := OpenJournal(r.state, "https://fake", testRepo, link)
	if err != nil || len(j.Entries) != 2 {
		t.Errorf("journal through a link: %d entries, %v; want the folder's 2", len(j.Entries), err)
	}
}

// TestEngineServerReset: after the server's data is reset (its version
// goes back below the journal's), the engine stops with ErrServerLostData,
// pushing and deleting nothing; a reseed then pulls in full, writes the new
// keys and pushes its own back.
func TestEngineServerReset(t *testing.T) {
	for _, gone := range []bool{false, true} {
		t.Run(fmt.Sprintf("410=%v", gone), func(t *testing.T) {
			r := newRig(t, map[string]string{"a.md": "a\n"}, map[string]string{"b.md": "b\n"}, nil)
			r.remote.goneAhead = gone
			r.sync(t)
			r.serverEdit(api.PutRequest{Entries: map[string]string{"c.md": "c\n"}}) // version 3
			r.sync(t)
			r.remote.resetData(map[string]string{"x.md": "x\n"})
			puts := len(r.remote.puts)
			if _, err := r.engine.Sync(context.Background()); !errors.Is(err, ErrServerLostData) {
				t.Fatalf("Sync after the reset = %v, want ErrServerLostData", err)
			}
			if len(r.remote.puts) != puts || len(r.local(t)) != 3 {
				t.Fatalf("a sync against a server that lost data pushed %d batches, left %d files", len(r.remote.puts)-puts, len(r.local(t)))
			}
			r.engine = r.newEngine(t, func(c *Config) { c.Reseed = true })
			r.sync(t)
			want := map[string]string{"a.md": "a\n", "b.md": "b\n", "c.md": "c\n", "x.md": "x\n"}
			if diff := cmp.Diff(want, r.local(t)); diff != "" {
				t.Errorf("local (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(want, r.remote.snapshot()); diff != "" {
				t.Errorf("server (-want +got):\n%s", diff)
			}
		})
	}
}

// TestEngineKeyThatCannotBeWrittenDoesNotBlockPushing: a server key that
// cannot be written locally (a folder of that name is in the way) is a
// warning naming it; the other local changes are still pushed, and the
// cycle reports ErrIncomplete.
func TestEngineKeyThatCannotBeWrittenDoesNotBlockPushing(t *testing.T) {
	r := newRig(t, map[string]string{"d.md": "d\n"}, map[string]string{"d.md/x.md": "x\n", "new.md": "n\n"}, nil)
	rep, err := r.engine.Sync(context.Background())
	if !errors.Is(err, ErrIncomplete) {
		t.Errorf("Sync = %v, want ErrIncomplete", err)
	}
	if len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0], `"d.md"`) {
		t.Errorf("warnings = %q, want one naming d.md", rep.Warnings)
	}
	want := map[string]string{"d.md": "d\n", "d.md/x.md": "x\n", "new.md": "n\n"}
	if diff := cmp.Diff(want, r.remote.snapshot()); diff != "" {
		t.Errorf("server (-want +got):\n%s", diff)
	}
	if _, ok := r.engine.cfg.Journal.Content("d.md"); ok {
		t.Error("d.md recorded as agreed though it was not written")
	}
}

// TestEngineRefusedBatches: a 409 key collision leaves that key out like a
// refused entry, and a 413 for the repo's or the request's size leaves the
// batch's entries out instead of retrying it forever; the rest is pushed.
func TestEngineRefusedBatches(t *testing.T) {
	tests := []struct {
		name    string
		fault   error
		skipped []string
	}{
		{"key collision", &client.APIError{Status: 409, Code: api.CodeKeyCollision, Message: "collides with S.md",
			Details: map[string]any{"key": "s.md"}}, []string{"s.md"}},
		{"repo too large", &client.APIError{Status: 413, Code: api.CodeRepoTooLarge, Message: "the repo is full"},
			[]string{"s.md", "t.md"}},
		{"request too large", &client.APIError{Status: 413, Code: api.CodeRequestTooLarge, Message: "too large"},
			[]string{"s.md", "t.md"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t, map[string]string{"a.md": "a\n"}, map[string]string{"s.md": "s\n", "t.md": "t\n"}, nil)
			r.remote.putFaults = []error{tt.fault}
			rep := r.sync(t)
			var skipped []string
			for _, s := range rep.Skipped {
				skipped = append(skipped, s.Path)
			}
			if diff := cmp.Diff(tt.skipped, skipped); diff != "" {
				t.Errorf("skipped (-want +got):\n%s", diff)
			}
			puts := len(r.remote.puts)
			r.sync(t)
			if len(r.remote.puts) != puts {
				t.Errorf("the refused entries were pushed again: %v", r.remote.puts[puts:])
			}
		})
	}
}

// TestEngineNonRegularFileIsSkipped: a synced file replaced by a symbolic
// link or a pipe is reported skipped, and its entry is not deleted.
func TestEngineNonRegularFileIsSkipped(t *testing.T) {
	for _, kind := range []string{"symlink", "fifo"} {
		t.Run(kind, func(t *testing.T) {
			r := newRig(t, nil, map[string]string{"a.md": "a\n", "b.md": "b\n"}, nil)
			r.sync(t)
			p := filepath.Join(r.dir, "a.md")
			os.Remove(p)
			var err error
			if kind == "symlink" {
				err = os.Symlink(filepath.Join(r.dir, "b.md"), p)
			} else {
				err = mkfifo(p)
			}
			if errors.Is(err, errors.ErrUnsupported) {
				t.Skip("no named pipes here")
			}
			if err != nil {
				t.Fatal(err)
			}
			rep := r.sync(t)
			want := []Skip{{Path: "a.md", Reason: "not a regular file"}}
			if diff := cmp.Diff(want, rep.Skipped); diff != "" {
				t.Errorf("skipped (-want +got):\n%s", diff)
			}
			if got := r.remote.snapshot()["a.md"]; got != "a\n" {
				t.Errorf("server a.md = %q, want it kept", got)
			}
		})
	}
}
