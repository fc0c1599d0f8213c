package agent

import (
	"context"
	"testing"
	"time"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/client"
	"github.com/teammem/teammem/testkit/proctest"
)

// TestEngineRunHoldsTriggersWhileBackingOff: after a 503 with a long
// Retry-After, neither poll ticks nor the watcher's batches reach the
// server; the edits are only marked pending, and the shutdown still
// pushes them.
func TestEngineRunHoldsTriggersWhileBackingOff(t *testing.T) {
	r := newRig(t, map[string]string{"a.md": "a\n"}, nil, func(c *Config) {
		c.Watch, c.Debounce, c.MaxDelay = true, 5*time.Millisecond, 20*time.Millisecond
		c.Poll = time.Millisecond
	})
	r.remote.mu.Lock()
	r.remote.getErr = &client.APIError{Status: 503, Type: api.TypeAPI, RetryAfter: time.Hour}
	r.remote.mu.Unlock()
	gets := func() int { r.remote.mu.Lock(); defer r.remote.mu.Unlock(); return r.remote.gets }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.engine.Run(ctx) }()
	proctest.WaitFor(t, "", func() bool { return gets() >= 1 })
	// Many poll intervals and debounce periods pass with edits saved; none
	// may reach the server before the Retry-After.
	for i := range 10 {
		writeTree(t, r.dir, map[string]string{"w.md": string(rune('a'+i)) + "\n"})
		time.Sleep(20 * time.Millisecond)
	}
	if n := gets(); n != 1 {
		t.Errorf("%d pulls while backing off, want the one that failed", n)
	}
	r.remote.mu.Lock()
	r.remote.getErr = nil
	r.remote.mu.Unlock()
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run = %v", err)
	}
	if got := r.remote.snapshot()["w.md"]; got != "j\n" {
		t.Errorf("server w.md after shutdown = %q, want the last edit", got)
	}
}
