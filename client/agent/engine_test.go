package agent

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/client"
	"github.com/teammem/teammem/testkit/proctest"
)

// rig is an engine over a real temporary folder, a real journal and a fake
// server.
type rig struct {
	dir, state string
	remote     *fakeRemote
	engine     *Engine
	reports    []Report
	mu         sync.Mutex
}

func newRig(t *testing.T, server map[string]string, local map[string]string, mod func(*Config)) *rig {
	t.Helper()
	r := &rig{dir: t.TempDir(), state: t.TempDir(), remote: newFakeRemote(server)}
	writeTree(t, r.dir, local)
	r.engine = r.newEngine(t, mod)
	return r
}

func (r *rig) newEngine(t *testing.T, mod func(*Config)) *Engine {
	t.Helper()
	j, err := OpenJournal(r.state, "https://fake", testRepo, r.dir)
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Remote: r.remote, Repo: testRepo, Dir: r.dir, Journal: j, Host: "box",
		Backoff: time.Millisecond, MaxBackoff: 10 * time.Millisecond,
		Now:      func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) },
		OnReport: func(rep Report) { r.mu.Lock(); r.reports = append(r.reports, rep); r.mu.Unlock() }}
	if mod != nil {
		mod(&cfg)
	}
	e, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func (r *rig) local(t *testing.T) map[string]string {
	t.Helper()
	snap, err := ScanDir(r.dir, ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return snap.Contents
}

func (r *rig) sync(t *testing.T) Report {
	t.Helper()
	rep, err := r.engine.Sync(context.Background())
	if err != nil {
		t.Fatalf("Sync: %v", err)
	}
	return rep
}

func TestEngineFirstSyncAndSteadyState(t *testing.T) {
	r := newRig(t, map[string]string{"server.md": "s\n", "both.md": "same\n"},
		map[string]string{"local.md": "l\n", "both.md": "same\n"}, nil)
	rep := r.sync(t)
	want := map[string]string{"server.md": "s\n", "both.md": "same\n", "local.md": "l\n"}
	if diff := cmp.Diff(want, r.local(t)); diff != "" {
		t.Errorf("local (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, r.remote.snapshot()); diff != "" {
		t.Errorf("server (-want +got):\n%s", diff)
	}
	if !cmp.Equal(rep.Pulled, []string{"server.md"}) || !cmp.Equal(rep.Pushed, []string{"local.md"}) {
		t.Errorf("report pulled %q pushed %q", rep.Pulled, rep.Pushed)
	}
	if r.remote.ifMatches[0] == "" {
		t.Error("push to an existing repo without If-Match")
	}
	// A second sync, even from a fresh engine over the saved journal, moves nothing.
	puts := len(r.remote.puts)
	r.engine = r.newEngine(t, nil)
	if rep := r.sync(t); len(rep.Pulled)+len(rep.Pushed)+len(rep.Deleted) != 0 {
		t.Errorf("second sync moved things: %+v", rep)
	}
	if len(r.remote.puts) != puts {
		t.Error("second sync pushed")
	}
}

func TestEngineChangesBothWays(t *testing.T) {
	r := newRig(t, map[string]string{"a.md": "a\n", "b.md": "b\n", "c.md": "c\n", "d.md": "d\n"}, nil, nil)
	r.sync(t)
	// Server edits a, deletes b; locally c is edited and d deleted.
	r.remote.mu.Lock()
	r.remote.apply(api.PutRequest{Entries: map[string]string{"a.md": "A\n"}, SoftDeleteKeys: []string{"b.md"}})
	r.remote.mu.Unlock()
	writeTree(t, r.dir, map[string]string{"c.md": "C\n"})
	os.Remove(filepath.Join(r.dir, "d.md"))
	r.sync(t)
	want := map[string]string{"a.md": "A\n", "c.md": "C\n"}
	if diff := cmp.Diff(want, r.local(t)); diff != "" {
		t.Errorf("local (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, r.remote.snapshot()); diff != "" {
		t.Errorf("server (-want +got):\n%s", diff)
	}
}

func TestEngine412MergesAndRetries(t *testing.T) {
	r := newRig(t, map[string]string{"a.md": "1\n2\n3\n"}, nil, nil)
	r.sync(t)
	writeTree(t, r.dir, map[string]string{"a.md": "ONE\n2\n3\n"})
	r.remote.beforePut = func(f *fakeRemote) { // another writer edits line 3 first
		f.apply(api.PutRequest{Entries: map[string]string{"a.md": "1\n2\nTHREE\n"}})
	}
	r.sync(t)
	want := map[string]string{"a.md": "ONE\n2\nTHREE\n"}
	if diff := cmp.Diff(want, r.remote.snapshot()); diff != "" {
		t.Errorf("server (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, r.local(t)); diff != "" {
		t.Errorf("local (-want +got):\n%s", diff)
	}
}

func TestEngineConflictCopy(t *testing.T) {
	r := newRig(t, map[string]string{"a.md": "line\n"}, nil, nil)
	r.sync(t)
	writeTree(t, r.dir, map[string]string{"a.md": "mine\n"})
	r.remote.mu.Lock()
	r.remote.apply(api.PutRequest{Entries: map[string]string{"a.md": "theirs\n"}})
	r.remote.mu.Unlock()
	rep := r.sync(t)
	copyName := "a.conflict-20260102T030405Z-box.md"
	if !cmp.Equal(rep.Conflicts, []string{copyName}) {
		t.Errorf("conflicts = %q", rep.Conflicts)
	}
	data, err := os.ReadFile(filepath.Join(r.dir, copyName))
	if err != nil || string(data) != "mine\n" {
		t.Errorf("conflict copy = %q, %v", data, err)
	}
	if diff := cmp.Diff(map[string]string{"a.md": "theirs\n"}, r.remote.snapshot()); diff != "" {
		t.Errorf("server (-want +got):\n%s", diff)
	}
	if got := r.local(t)["a.md"]; got != "theirs\n" {
		t.Errorf("local a.md = %q", got)
	}
	r.sync(t) // the conflict copy is never pushed
	if _, ok := r.remote.snapshot()[copyName]; ok {
		t.Error("conflict copy pushed")
	}
}

func TestEngineAuthStopsPushing(t *testing.T) {
	for _, status := range []int{401, 403} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			r := newRig(t, map[string]string{"a.md": "a\n"}, map[string]string{"new.md": "n\n"}, nil)
			r.remote.putFaults = []error{&client.APIError{Status: status}}
			_, err := r.engine.Sync(context.Background())
			if !errors.Is(err, ErrPushBlocked) {
				t.Fatalf("Sync = %v, want ErrPushBlocked", err)
			}
			puts := len(r.remote.puts)
			if _, err := r.engine.Sync(context.Background()); !errors.Is(err, ErrPushBlocked) || len(r.remote.puts) != puts {
				t.Errorf("pushing went on after %d: %v", status, err)
			}
			if r.local(t)["new.md"] != "n\n" {
				t.Error("local edit lost")
			}
			// A restart (new engine, same journal) pushes it.
			r.engine = r.newEngine(t, nil)
			r.sync(t)
			if r.remote.snapshot()["new.md"] != "n\n" {
				t.Error("edit not pushed after restart")
			}
		})
	}
}

func TestEngineTooManyEntries(t *testing.T) {
	r := newRig(t, map[string]string{"a.md": "a\n"}, map[string]string{"a.md": "a\n", "b.md": "b\n", "c.md": "c\n"}, nil)
	r.remote.maxEntries = 2
	rep := r.sync(t)
	if diff := cmp.Diff(map[string]string{"a.md": "a\n", "b.md": "b\n"}, r.remote.snapshot()); diff != "" {
		t.Errorf("server (-want +got):\n%s", diff)
	}
	if len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0], `"c.md"`) {
		t.Errorf("warnings = %q", rep.Warnings)
	}
}

func TestEngineRetryableErrorIsReturned(t *testing.T) {
	r := newRig(t, nil, map[string]string{"a.md": "a\n"}, nil)
	r.remote.putFaults = []error{&client.APIError{Status: 503, RetryAfter: time.Second}}
	_, err := r.engine.Sync(context.Background())
	if !client.IsRetryable(err) || client.RetryAfter(err) != time.Second {
		t.Fatalf("Sync = %v, want a retryable error with Retry-After", err)
	}
	r.sync(t)
	if r.remote.snapshot()["a.md"] != "a\n" {
		t.Error("not pushed after the server came back")
	}
}

// TestEngineRunWatchesRetriesAndFlushes drives Run over a real watcher: an
// edit is pushed despite a 429, and an edit made just before cancellation is
// pushed by the shutdown rescan.
func TestEngineRunWatchesRetriesAndFlushes(t *testing.T) {
	r := newRig(t, map[string]string{"a.md": "a\n"}, nil, func(c *Config) {
		c.Watch, c.Debounce, c.MaxDelay = true, 20*time.Millisecond, 100*time.Millisecond
	})
	r.remote.putFaults = []error{&client.APIError{Status: 429, Type: api.TypeRateLimit}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.engine.Run(ctx) }()
	proctest.WaitFor(t, "", func() bool { return r.localHas("a.md") })
	writeTree(t, r.dir, map[string]string{"w.md": "watched\n"})
	proctest.WaitFor(t, "", func() bool { return r.remote.snapshot()["w.md"] == "watched\n" })
	writeTree(t, r.dir, map[string]string{"late.md": "late\n"})
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run = %v", err)
	}
	if r.remote.snapshot()["late.md"] != "late\n" {
		t.Error("edit made before shutdown not pushed")
	}
	j, err := OpenJournal(r.state, "https://fake", testRepo, r.dir)
	if err != nil || j.Entries["late.md"].Content != "late\n" {
		t.Errorf("journal after shutdown: %v, %+v", err, j.Entries)
	}
}

func (r *rig) localHas(key string) bool {
	_, err := os.Stat(filepath.Join(r.dir, key))
	return err == nil
}

// TestEngineServerSkipSurvivesReplan: an entry the server left out of an
// accepted batch is in the cycle's report even when a later batch met a
// teammate's write (412) and the cycle planned again.
func TestEngineServerSkipSurvivesReplan(t *testing.T) {
	local := map[string]string{"a.md": strings.Repeat("a", 60) + "\n", "b.md": strings.Repeat("b", 60) + "\n"}
	r := newRig(t, nil, local, func(c *Config) { c.BatchBytes = 80 })
	r.remote.skips = map[string]string{"a.md": api.CodeSecretDetected}
	r.remote.beforePut = func(f *fakeRemote) { // between the first batch and the second, a teammate writes
		f.beforePut = func(f *fakeRemote) { f.apply(api.PutRequest{Entries: map[string]string{"c.md": "c\n"}}) }
	}
	rep := r.sync(t)
	want := []Skip{{Path: "a.md", Reason: "the server refused it: " + api.CodeSecretDetected + ": left out"}}
	if diff := cmp.Diff(want, rep.Skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
	if got := r.remote.snapshot(); got["b.md"] != local["b.md"] || got["c.md"] != "c\n" || got["a.md"] != "" {
		t.Errorf("server = %q; want b.md and c.md, not a.md", got)
	}
	if n := len(r.remote.puts); n < 3 {
		t.Errorf("%d puts; the second batch should have met a 412 and been sent again", n)
	}
}

// TestEngineSkippedListOmitted: when the server leaves out more entries
// than its answer lists (skippedOmitted), the agent records only what the
// answer names as changed, pulls and pushes the rest again, until every
// refused entry is named: none is recorded as synced, every good one is.
func TestEngineSkippedListOmitted(t *testing.T) {
	local := map[string]string{"good-a.md": "a\n", "good-b.md": "b\n"}
	skips := map[string]string{}
	for i := range api.MaxSkippedListed + 50 {
		k := fmt.Sprintf("bad-%03d.md", i)
		local[k], skips[k] = "refused\n", api.SkipEntryTooLarge
	}
	r := newRig(t, nil, local, nil)
	r.remote.skips = skips
	rep := r.sync(t)
	if got := r.remote.snapshot(); len(got) != 2 || got["good-a.md"] != "a\n" || got["good-b.md"] != "b\n" {
		t.Errorf("server = %q; want the two good entries", got)
	}
	if len(rep.Skipped) != len(skips) {
		t.Errorf("%d skipped reported, want %d", len(rep.Skipped), len(skips))
	}
	for k := range skips {
		if _, ok := r.engine.cfg.Journal.Content(k); ok {
			t.Errorf("%s is recorded as synced; the server left it out", k)
		}
	}
	puts := len(r.remote.puts)
	if rep := r.sync(t); len(rep.Pushed) != 0 || len(r.remote.puts) != puts {
		t.Errorf("a second sync pushed %q (%d puts); the refused entries stay out until they change", rep.Pushed, len(r.remote.puts)-puts)
	}
}

func TestEngineRefusedEntryIsLeftOut(t *testing.T) {
	r := newRig(t, map[string]string{"a.md": "a\n"}, map[string]string{"a.md": "a\n", "s.md": "looks fine\n", "t.md": "t\n"}, nil)
	r.remote.putFaults = []error{&client.APIError{Status: 422, Code: api.CodeSecretDetected, Message: "a credential was found",
		Details: map[string]any{"key": "s.md", "rule_id": "x", "label": "X"}}}
	rep := r.sync(t)
	if got := r.remote.snapshot(); got["t.md"] != "t\n" || got["s.md"] != "" {
		t.Errorf("server = %q, want t.md pushed and s.md left out", got)
	}
	want := []Skip{{Path: "s.md", Reason: "the server refused it: a credential was found"}}
	if diff := cmp.Diff(want, rep.Skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
}
