package agent

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/client"
)

// lostJournalRig is a folder that synced 30 keys, whose journal is then
// lost, while a teammate deleted 10 keys and changed 2 (one the index) on
// the server: its
// folder still holds what it last pulled.
func lostJournalRig(t *testing.T) (*rig, map[string]string) {
	t.Helper()
	all := map[string]string{}
	for i := range 30 {
		all[fmt.Sprintf("k%02d.md", i)] = fmt.Sprintf("note %d\n", i)
	}
	all["MEMORY.md"] = "- [k00](k00.md)\n"
	r := newRig(t, all, nil, nil)
	r.sync(t)
	r.remote.mu.Lock()
	var del []string
	for i := range 10 {
		del = append(del, fmt.Sprintf("k%02d.md", i))
	}
	r.remote.apply(api.PutRequest{SoftDeleteKeys: del})
	r.remote.apply(api.PutRequest{Entries: map[string]string{"k10.md": "note 10, revised\n", "MEMORY.md": "- [k10](k10.md)\n"}})
	r.remote.mu.Unlock()
	if err := os.RemoveAll(r.state); err != nil { // a reinstall, a new laptop
		t.Fatal(err)
	}
	return r, all
}

func TestLostJournalOldCopiesAreNotPushed(t *testing.T) {
	r, _ := lostJournalRig(t)
	// Edits made while the journal was gone: of a key deleted on the
	// server since (the edit wins), of a live key (no base to merge with:
	// a conflict copy keeps it), and a new file.
	writeTree(t, r.dir, map[string]string{"k05.md": "note 5, edited while the journal was gone\n",
		"k11.md": "note 11, edited while the journal was gone\n", "new.md": "new\n"})
	r.engine = r.newEngine(t, nil)
	puts := len(r.remote.puts)
	rep := r.sync(t)

	want := r.remote.snapshot()
	if want["k05.md"] != "note 5, edited while the journal was gone\n" || want["k11.md"] != "note 11\n" {
		t.Errorf("server k05.md %q, k11.md %q; want the edit of the deleted key pushed, the live one kept", want["k05.md"], want["k11.md"])
	}
	if len(rep.Conflicts) != 1 || !strings.HasPrefix(rep.Conflicts[0], "k11.conflict-") {
		t.Errorf("conflicts %v; want k11.md's edit in a conflict copy", rep.Conflicts)
	}
	if diff := cmp.Diff(want, r.local(t)); diff != "" {
		t.Errorf("folder after the first sync without a journal (-server +local):\n%s", diff)
	}
	var pushed []string
	for _, p := range r.remote.puts[puts:] {
		if len(p.SoftDeleteKeys) > 0 {
			t.Errorf("pushed deletions %v", p.SoftDeleteKeys)
		}
		for k := range p.Entries {
			pushed = append(pushed, k)
		}
	}
	if diff := cmp.Diff([]string{"k05.md", "new.md"}, pushed, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
		t.Errorf("pushed (-want +got): %s", diff)
	}
	for i := range 10 {
		if _, ok := want[fmt.Sprintf("k%02d.md", i)]; ok && i != 5 {
			t.Errorf("k%02d.md came back on the server", i)
		}
	}
	if len(rep.Deleted) != 9 || !strings.Contains(strings.Join(rep.Pulled, " "), "k10.md") {
		t.Errorf("report deleted %v, pulled %v; want the 10 deleted keys, k10.md pulled", rep.Deleted, rep.Pulled)
	}
	if want["MEMORY.md"] != "- [k10](k10.md)\n" {
		t.Errorf("the index came back with the old line: %q", want["MEMORY.md"])
	}
	// Settled: later files unknown to the journal are edits, and nothing
	// more is looked up.
	asks := len(r.remote.seenAsks)
	writeTree(t, r.dir, map[string]string{"k00.md": "note 0\n"}) // restored by hand, on purpose
	r.sync(t)
	if got := r.remote.snapshot()["k00.md"]; got != "note 0\n" || len(r.remote.seenAsks) != asks {
		t.Errorf("a file restored once settled: server %q, %d more lookups; want pushed, none", got, len(r.remote.seenAsks)-asks)
	}
}

func TestLostJournalOlderServerFallsBack(t *testing.T) {
	r, _ := lostJournalRig(t)
	r.remote.seenErr = fmt.Errorf("look up: %w", &client.APIError{Status: 404, Code: api.CodeNotFound})
	r.engine = r.newEngine(t, nil)
	rep := r.sync(t)
	if got := len(r.remote.snapshot()); got != 31 { // today's rule: the 10 are pushed again
		t.Errorf("%d keys on the server; want 31 (today's rule without the lookup)", got)
	}
	if !strings.Contains(strings.Join(rep.Warnings, "\n"), "cannot tell an old copy from an edit") {
		t.Errorf("warnings %q; want the older server named", rep.Warnings)
	}
}

func TestLostJournalLookupFailureDecidesNothing(t *testing.T) {
	r, _ := lostJournalRig(t)
	r.remote.seenErr = fmt.Errorf("look up: %w", client.ErrNetwork)
	r.engine = r.newEngine(t, nil)
	puts := len(r.remote.puts)
	if _, err := r.engine.Sync(context.Background()); !errors.Is(err, client.ErrNetwork) {
		t.Fatalf("Sync = %v; want the lookup's network error", err)
	}
	if len(r.remote.puts) != puts || len(r.local(t)) != 31 {
		t.Errorf("%d pushes, %d local files; want nothing pushed or deleted", len(r.remote.puts)-puts, len(r.local(t)))
	}
	// The journal stays unsettled across a restart: the next sync looks up.
	r.remote.seenErr = nil
	r.engine = r.newEngine(t, nil)
	r.sync(t)
	if got := len(r.remote.snapshot()); got != 21 {
		t.Errorf("%d keys on the server after the retry; want 21", got)
	}
}
