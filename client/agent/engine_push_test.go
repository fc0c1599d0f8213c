package agent

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/client"
)

// TestEnginePushNeverTouchesLocalFiles: a push-only cycle writes, deletes
// and merges nothing locally; keys the server changed are neither written
// nor pushed, but listed as pending a pull, and a later sync takes them.
func TestEnginePushNeverTouchesLocalFiles(t *testing.T) {
	r := newRig(t, map[string]string{"w.md": "w\n", "d.md": "d\n", "m.md": "a\nb\nc\n", "p.md": "p\n"}, nil, nil)
	r.sync(t)
	r.serverEdit(api.PutRequest{Entries: map[string]string{"w.md": "theirs\n", "m.md": "a\nb\nTHEIRS\n", "n.md": "new\n"},
		SoftDeleteKeys: []string{"d.md"}})
	writeTree(t, r.dir, map[string]string{"m.md": "MINE\nb\nc\n", "p.md": "pushed\n"})
	before := r.local(t)
	rep, err := r.engine.Push(context.Background())
	if err != nil {
		t.Fatalf("Push: %v", err)
	}
	if diff := cmp.Diff(before, r.local(t)); diff != "" {
		t.Errorf("local after push (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"d.md", "m.md", "n.md", "w.md"}, rep.PendingPull); diff != "" {
		t.Errorf("pending pull (-want +got):\n%s", diff)
	}
	want := map[string]string{"w.md": "theirs\n", "m.md": "a\nb\nTHEIRS\n", "n.md": "new\n", "p.md": "pushed\n"}
	if diff := cmp.Diff(want, r.remote.snapshot()); diff != "" {
		t.Errorf("server after push (-want +got):\n%s", diff)
	}
	r.sync(t)
	want["m.md"] = "MINE\nb\nTHEIRS\n"
	if diff := cmp.Diff(want, r.local(t)); diff != "" {
		t.Errorf("local after the next sync (-want +got):\n%s", diff)
	}
}

// TestShutdownFlushOutlastsLostRaces: the flush on SIGTERM keeps trying
// while teammates' pushes win the race more often than one cycle retries
// (here 8 412s in a row), within ShutdownTimeout, and pushes the edit.
func TestShutdownFlushOutlastsLostRaces(t *testing.T) {
	r := newRig(t, map[string]string{"MEMORY.md": "- base\n"}, nil, func(c *Config) { c.ShutdownTimeout = 10 * time.Second })
	r.sync(t)
	writeTree(t, r.dir, map[string]string{"MEMORY.md": "- base\n- mine\n"})
	for range 8 {
		r.remote.putFaults = append(r.remote.putFaults, &client.APIError{Status: 412, Code: api.CodeETagMismatch})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // SIGTERM
	if err := r.engine.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if got := r.remote.snapshot()["MEMORY.md"]; got != "- base\n- mine\n" {
		t.Errorf("the server holds %q after the flush; want the edit", got)
	}
}
