package httpapi

import (
	"sync/atomic"
	"testing"
	"time"
)

// TestReleaser: memory is released once after the last of overlapping
// large downloads ends, not while one still runs.
func TestReleaser(t *testing.T) {
	var freed atomic.Int32
	r := &releaser{free: func() { freed.Add(1) }, after: 20 * time.Millisecond}
	endA := r.start()
	endB := r.start()
	endA()
	time.Sleep(100 * time.Millisecond)
	if n := freed.Load(); n != 0 {
		t.Fatalf("released %d times while a download still ran", n)
	}
	endB()
	endC := r.start() // starts and ends before the release fires
	endC()
	deadline := time.Now().Add(10 * time.Second)
	for freed.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond)
	if n := freed.Load(); n != 1 {
		t.Errorf("released %d times after the downloads ended, want 1", n)
	}
}
