//go:build unix

package e2e

import (
	"strings"
	"testing"

	"github.com/teammem/teammem/testkit/proctest"
)

// TestSyncContinuesPastASkippedFile runs a server whose entry limit is below
// the agent's: the server leaves the large file out of the push (skipped)
// and applies the rest, and the teammate's sync carries on — the other
// file reaches the second agent, later edits still propagate, the skipped
// file is reported once, and once shrunk it syncs too.
func TestSyncContinuesPastASkippedFile(t *testing.T) {
	srv := startServer(t, t.TempDir(), "127.0.0.1:0", "--max-entry-bytes", "1000")
	p := &pair{srv: srv, a: startAgent(t, srv, t.TempDir(), t.TempDir()), b: startAgent(t, srv, t.TempDir(), t.TempDir())}
	defer p.stopAll(t)
	defer dumpOnFailure(t, p)

	big := strings.Repeat("a line of a long runbook\n", 100) // 2,500 bytes
	write(t, p.a.dir, "big.md", big)
	write(t, p.a.dir, "ok.md", "beside the big one\n")
	proctest.WaitFor(t, "ok.md in b", func() bool { return read(p.b.dir, "ok.md") == "beside the big one\n" })
	if _, ok := p.srv.entries(repo)["big.md"]; ok {
		t.Fatal("big.md reached the server over its entry limit")
	}
	skippedReports := func() int {
		n := 0
		for _, r := range p.a.reports(t) {
			for _, s := range r.Skipped {
				if s.Path == "big.md" {
					if !strings.Contains(s.Reason, "entry_too_large") {
						t.Errorf("big.md skipped for %q, want entry_too_large", s.Reason)
					}
					n++
				}
			}
		}
		return n
	}
	proctest.WaitFor(t, "big.md reported as skipped", func() bool { return skippedReports() > 0 })

	write(t, p.a.dir, "later.md", "an edit after the skip\n")
	proctest.WaitFor(t, "later.md in b", func() bool { return read(p.b.dir, "later.md") == "an edit after the skip\n" })
	write(t, p.b.dir, "from-b.md", "the other way\n")
	proctest.WaitFor(t, "from-b.md in a", func() bool { return read(p.a.dir, "from-b.md") == "the other way\n" })
	if n := skippedReports(); n != 1 {
		t.Errorf("big.md reported %d times, want once for its one content", n)
	}
	if read(p.b.dir, "big.md") != absent {
		t.Error("big.md reached b")
	}

	write(t, p.a.dir, "big.md", "now short\n")
	proctest.WaitFor(t, "the shrunk big.md in b", func() bool { return read(p.b.dir, "big.md") == "now short\n" })
}
