package agent

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// manyEntries returns n entries of about size bytes in 20 folders.
func manyEntries(n, size int) map[string]string {
	out := make(map[string]string, n)
	for i := range n {
		key := fmt.Sprintf("topic-%02d/notes-%04d.md", i%20, i)
		out[key] = strings.Repeat(key+" ", size/(len(key)+1)+1)[:size] + "\n"
	}
	return out
}

// TestEnginePullWritesEveryFile: a pull of many entries writes each one
// whole, records it and reports it in key order; a key that cannot be
// written (its folder is a file) fails alone.
func TestEnginePullWritesEveryFile(t *testing.T) {
	server := manyEntries(300, 2000)
	server["blocked/x.md"] = "x\n"
	r := newRig(t, server, nil, nil)
	writeTree(t, r.dir, map[string]string{"blocked": "a file where a folder should be"})
	rep, err := r.engine.Pull(context.Background())
	if !errors.Is(err, ErrIncomplete) || len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0], `"blocked/x.md"`) {
		t.Errorf("Pull = %v, warnings %q; want ErrIncomplete and a warning naming blocked/x.md", err, rep.Warnings)
	}
	delete(server, "blocked/x.md")
	if diff := cmp.Diff(server, r.local(t)); diff != "" {
		t.Errorf("local (-want +got):\n%s", diff)
	}
	if want := slices.Sorted(maps.Keys(server)); !cmp.Equal(rep.Pulled, want) {
		t.Errorf("pulled %d keys, want %d in key order", len(rep.Pulled), len(want))
	}
	if _, ok := r.engine.cfg.Journal.Content("blocked/x.md"); ok {
		t.Error("the key that was not written is recorded as agreed")
	}
	if len(r.engine.cfg.Journal.Entries) != len(server) {
		t.Errorf("journal holds %d entries, want %d", len(r.engine.cfg.Journal.Entries), len(server))
	}
}

// BenchmarkEnginePull1000 measures a pull of 1,000 entries of 2 KB into an
// empty folder (fake server; the files are really written and fsynced).
func BenchmarkEnginePull1000(b *testing.B) {
	server := manyEntries(1000, 2000)
	for range b.N {
		b.StopTimer()
		state, dir := b.TempDir(), b.TempDir()
		j, err := OpenJournal(state, "https://fake", testRepo, dir)
		if err != nil {
			b.Fatal(err)
		}
		e, err := New(Config{Remote: newFakeRemote(server), Repo: testRepo, Dir: dir, Journal: j})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, err := e.Pull(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}
