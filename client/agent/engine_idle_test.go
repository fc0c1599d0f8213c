package agent

import (
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/teammem/teammem/api"
)

// journalFile returns the journal file's information, to tell whether it
// was written (an atomic write replaces the file).
func (r *rig) journalFile(t *testing.T) os.FileInfo {
	t.Helper()
	fi, err := os.Stat(r.engine.cfg.Journal.Path())
	if err != nil {
		t.Fatal(err)
	}
	return fi
}

// TestEngineIdlePollDoesNothing: while a watcher reports changes, a poll
// answered 304 with no change reported reads no file, walks no folder and
// does not write the journal; a server change or a reported path does the
// least needed.
func TestEngineIdlePollDoesNothing(t *testing.T) {
	r := newRig(t, map[string]string{"a.md": "a\n", "b.md": "b\n"}, nil, nil)
	writeOld(t, r.dir, map[string]string{"c.md": "c\n"})
	r.engine.local.watched(true)
	r.sync(t)
	r.sync(t) // the files written by the first sync are read once more (racy)
	before := r.journalFile(t)
	l := r.engine.local
	l.reads, l.walks = 0, 0
	r.sync(t)
	if l.reads+l.walks != 0 {
		t.Errorf("a 304 poll read %d files and walked %d times", l.reads, l.walks)
	}
	if after := r.journalFile(t); !os.SameFile(before, after) {
		t.Error("a 304 poll wrote the journal")
	}

	t.Run("server change reads nothing", func(t *testing.T) {
		r.remote.mu.Lock()
		r.remote.apply(api.PutRequest{Entries: map[string]string{"s.md": "s\n"}})
		r.remote.mu.Unlock()
		l.reads, l.walks = 0, 0
		rep := r.sync(t)
		if l.reads+l.walks != 0 || !cmp.Equal(rep.Pulled, []string{"s.md"}) {
			t.Errorf("read %d, walked %d, pulled %q", l.reads, l.walks, rep.Pulled)
		}
	})
	t.Run("reported path is read alone", func(t *testing.T) {
		r.sync(t) // reads s.md, which the engine wrote
		writeOld(t, r.dir, map[string]string{"c.md": "edited\n"})
		l.changed("c.md")
		l.reads, l.walks = 0, 0
		rep := r.sync(t)
		if l.reads != 1 || l.walks != 0 || !cmp.Equal(rep.Pushed, []string{"c.md"}) {
			t.Errorf("read %d, walked %d, pushed %q", l.reads, l.walks, rep.Pushed)
		}
	})
}

// TestEngineSeesItsOwnWrites: a file the engine wrote from the server is
// examined again before the next reconcile, even before the watcher
// reports it, so that its old content is never pushed back.
func TestEngineSeesItsOwnWrites(t *testing.T) {
	r := newRig(t, map[string]string{"a.md": "v1\n"}, nil, nil)
	writeOld(t, r.dir, map[string]string{"a.md": "v1\n"})
	r.engine.local.watched(true)
	r.sync(t)
	for _, v := range []string{"v2\n", "v3\n"} {
		r.remote.mu.Lock()
		r.remote.apply(api.PutRequest{Entries: map[string]string{"a.md": v}})
		r.remote.mu.Unlock()
		r.sync(t)
		if got := r.remote.snapshot()["a.md"]; got != v {
			t.Fatalf("server a.md = %q after pulling %q", got, v)
		}
		if got := r.local(t)["a.md"]; got != v {
			t.Fatalf("local a.md = %q, want %q", got, v)
		}
		if rep := r.reports[len(r.reports)-1]; len(rep.Conflicts)+len(rep.Pushed) > 0 {
			t.Fatalf("pulling %q: conflicts %q, pushed %q", v, rep.Conflicts, rep.Pushed)
		}
	}
	if len(r.remote.puts) != 0 {
		t.Errorf("pushed %d times, want never", len(r.remote.puts))
	}
}
