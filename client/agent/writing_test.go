package agent

import (
	"testing"

	"github.com/teammem/teammem/api"
)

// TestEngineCrashAfterWritingIsNotAnEdit: a pull that dies after writing
// some files, before recording them (here: the journal says they are being
// written, the files hold the server's content), must not take those files
// for local edits when the server moves on: the next sync writes the
// newest content and makes no conflict copy.
func TestEngineCrashAfterWritingIsNotAnEdit(t *testing.T) {
	v1 := map[string]string{"a.md": "one\ntwo\n", "b.md": "three\nfour\n"}
	v2 := map[string]string{"a.md": "one v2\ntwo v2\n", "b.md": "three v2\nfour v2\n"}
	v3 := map[string]string{"a.md": "one v3\ntwo v3\n", "b.md": "three v3\nfour v3\n"}
	r := newRig(t, v1, nil, nil)
	r.sync(t)
	r.serverEdit(api.PutRequest{Entries: v2})
	// The killed pull: the journal saved with the writes in progress, one
	// file written, the other not.
	j := r.engine.cfg.Journal
	j.markWriting(v2)
	if err := j.Save(); err != nil {
		t.Fatal(err)
	}
	writeTree(t, r.dir, map[string]string{"a.md": v2["a.md"]})
	r.serverEdit(api.PutRequest{Entries: v3})
	r.engine = r.newEngine(t, nil) // a new process reads the journal
	rep := r.sync(t)
	if len(rep.Conflicts) != 0 || len(rep.Pushed) != 0 {
		t.Errorf("conflicts %q, pushed %q; want none", rep.Conflicts, rep.Pushed)
	}
	if got := r.local(t); got["a.md"] != v3["a.md"] || got["b.md"] != v3["b.md"] {
		t.Errorf("local %q, want v3", got)
	}
	if len(r.engine.cfg.Journal.Writing) != 0 {
		t.Errorf("writes still in progress after the sync: %v", r.engine.cfg.Journal.Writing)
	}
}

// TestEngineEditAfterCrashedWriteIsAnEdit: a file edited after the agent
// wrote it (its content is no longer what the agent wrote) stays a local
// edit: it is merged, not overwritten.
func TestEngineEditAfterCrashedWriteIsAnEdit(t *testing.T) {
	v1 := map[string]string{"a.md": "one\ntwo\nthree\nfour\n"}
	v2 := map[string]string{"a.md": "one\ntwo\nthree\nfour v2\n"}
	r := newRig(t, v1, nil, nil)
	r.sync(t)
	r.engine.cfg.Journal.markWriting(v2)
	if err := r.engine.cfg.Journal.Save(); err != nil {
		t.Fatal(err)
	}
	writeTree(t, r.dir, map[string]string{"a.md": "one (edited)\ntwo\nthree\nfour\n"})
	r.engine = r.newEngine(t, nil)
	r.sync(t)
	if got, want := r.remote.snapshot()["a.md"], "one (edited)\ntwo\nthree\nfour\n"; got != want {
		t.Errorf("server %q, want the edit %q", got, want)
	}
}
