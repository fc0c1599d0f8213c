package agent

import (
	"context"
	"testing"

	"github.com/teammem/teammem/client"
)

// TestPushNamesHead: every push names the checkout's HEAD as it is when
// the push is made, and keeps the surface its context says.
func TestPushNamesHead(t *testing.T) {
	head := "4f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39"
	r := newRig(t, nil, map[string]string{"MEMORY.md": "- a\n"}, func(c *Config) { c.Head = func() string { return head } })
	r.sync(t)
	head = "0123456789abcdef0123456789abcdef01234567"
	writeTree(t, r.dir, map[string]string{"MEMORY.md": "- a\n- b\n"})
	if _, err := r.engine.Push(client.WithSurface(context.Background(), "mcp")); err != nil {
		t.Fatal(err)
	}
	want := []client.Provenance{{Commit: "4f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39"}, {Surface: "mcp", Commit: head}}
	if len(r.remote.provenances) != len(want) {
		t.Fatalf("%d pushes: %+v", len(r.remote.provenances), r.remote.provenances)
	}
	for i, p := range r.remote.provenances {
		if p != want[i] {
			t.Errorf("push %d: %+v; want %+v", i, p, want[i])
		}
	}
}
