package main

import (
	"strings"
	"testing"

	"github.com/teammem/teammem/client/agent"
)

// TestCountsAgree: every count status and a one-shot command's outcome
// print agrees with its noun: one of a thing is singular, any other
// number plural.
func TestCountsAgree(t *testing.T) {
	for _, n := range []int{1, 2} {
		var out strings.Builder
		s := &session{e: &cliEnv{Stdout: &out}}
		printStatus(s, &agent.Status{StaleReferences: n, Stream: &agent.StreamState{State: "connected", Reconnects: n}})
		err := incomplete(agent.Report{Warnings: make([]string, n)})
		got := out.String() + err.Error()
		want := []string{"stale:     1 code reference of", ", 1 reconnect\n", "1 warning needs attention"}
		if n == 2 {
			want = []string{"stale:     2 code references of", ", 2 reconnects\n", "2 warnings need attention"}
		}
		for _, w := range want {
			if !strings.Contains(got, w) {
				t.Errorf("with %d: the output lacks %q:\n%s", n, w, got)
			}
		}
	}
}
