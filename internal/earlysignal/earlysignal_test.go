//go:build unix

package earlysignal

import (
	"context"
	"syscall"
	"testing"
	"time"
)

// TestSignalBeforeContextIsHeld: a SIGTERM that arrives before main asks
// for its context (here: before the test calls Context) neither ends the
// process nor is lost: the context is cancelled at once.
func TestSignalBeforeContextIsHeld(t *testing.T) {
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond) // the process would be gone by now without the handler
	ctx, stop := Context(context.Background())
	defer stop()
	select {
	case <-ctx.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the signal sent before Context did not cancel it")
	}
	// A second signal is caught too (the program ends as it chooses).
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
}

func TestStopWithoutSignal(t *testing.T) {
	ctx, stop := Context(context.Background())
	stop()
	if ctx.Err() == nil {
		t.Error("stop did not cancel the context")
	}
}
