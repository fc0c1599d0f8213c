//go:build unix

package e2e

import (
	"encoding/json"
	"testing"

	"github.com/teammem/teammem/testkit/pgtest"
	"github.com/teammem/teammem/testkit/proctest"
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
	if st := streamStatus(t, s1, a); st.State != "connected" || st.ConnectedSince == "" {
		t.Errorf("status of agent A's stream: %+v; want connected", st)
	}

	// Replica 2 goes down under agent B; A's edits meanwhile reach B once
	// it is back, and B's edit made while it was down reaches A.
	s2.restart(t, func() {
		write(t, dirA, "decisions.md", "use postgres 15\n")
		write(t, dirB, "offline.md", "written while the server was down\n")
	})
	waitFile(t, dirB, "decisions.md", "use postgres 15\n")
	waitFile(t, dirA, "offline.md", "written while the server was down\n")
	// The stream itself comes back after the follower's backoff.
	proctest.WaitFor(t, "agent B's stream to reconnect", func() bool {
		st := streamStatus(t, s2, b)
		return st.State == "connected" && st.Reconnects >= 1
	})
	write(t, dirA, "after.md", "after the restart\n")
	waitFile(t, dirB, "after.md", "after the restart\n")
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
	proctest.WaitFor(t, key+" in "+dir, func() bool { return read(dir, key) == content })
}

// streamState is the stream part of `status --json`.
type streamState struct {
	State          string
	ConnectedSince string
	LastVersion    int64
	Reconnects     int
}

// streamStatus runs `status --json` for a running agent.
func streamStatus(t *testing.T, srv *serverProc, a *agentProc) streamState {
	t.Helper()
	code, p := runAgent(t, srv, a.dir, a.state, "status")
	var st struct{ Stream *streamState }
	if err := json.Unmarshal([]byte(p.stdout.String()), &st); code != 0 || err != nil || st.Stream == nil {
		t.Fatalf("status: exit %d, %v, no stream in\n%s\n%s", code, err, p.stdout, p.stderr)
	}
	return *st.Stream
}
