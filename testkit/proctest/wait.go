package proctest

import (
	"testing"
	"time"
)

// WaitTimeout bounds WaitFor: a liveness bound for what must happen (a
// process's output, a file written by an agent), not a speed claim.
const WaitTimeout = 15 * time.Second

// WaitFor polls cond every 10 ms until it holds, failing the test when
// WaitTimeout passes first; what names the condition in the failure.
func WaitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(WaitTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			if what == "" {
				what = "the condition"
			}
			t.Fatalf("timed out after %v waiting for %s", WaitTimeout, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
