//go:build unix

package e2e

import (
	"testing"

	"github.com/teammem/teammem/internal/pgtest"
)

// TestLiveSyncAcrossReplicas runs two server replicas on one Postgres
// database and an agent on each, both polling only every 60 s: an edit in
// one folder reaches the other within seconds through the event stream
// (LISTEN/NOTIFY between the replicas); a replica restarted under its
// agent is caught up with, both ways.
func TestLiveSyncAcrossReplicas(t *testing.T) {
	url := pgtest.URL(t)
	s1 := startServer(t, t.TempDir(), "127.0.0.1:0", "--database-url", url, "--migrate")
	s2 := startServer(t, t.TempDir(), "127.0.0.1:0", "--database-url", url)
	dirA, dirB := t.TempDir(), t.TempDir()
	a := startAgent(t, s1, dirA, t.TempDir(), "--poll", "60s")
	b := startAgent(t, s2, dirB, t.TempDir(), "--poll", "60s")

	write(t, dirA, "decisions.md", "use postgres\n")
	waitFile(t, dirB, "decisions.md", "use postgres\n")
	write(t, dirB, "notes/b.md", "from b\n")
	waitFile(t, dirA, "notes/b.md", "from b\n")

	// Replica 2 goes down under agent B; A's edits meanwhile reach B once
	// it is back, and B's edit made while it was down reaches A.
	s2.restart(t, func() {
		write(t, dirA, "decisions.md", "use postgres 15\n")
		write(t, dirB, "offline.md", "written while the server was down\n")
	})
	waitFile(t, dirB, "decisions.md", "use postgres 15\n")
	waitFile(t, dirA, "offline.md", "written while the server was down\n")
	for _, p := range []*agentProc{a, b} {
		for _, r := range p.reports(t) {
			if len(r.Conflicts) > 0 {
				t.Errorf("conflicts: %v", r.Conflicts)
			}
		}
	}
}

func waitFile(t *testing.T, dir, key, content string) {
	t.Helper()
	waitFor(t, key+" in "+dir, func() bool { return read(dir, key) == content })
}
