//go:build unix

package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/teammem/teammem/testkit/proctest"
)

// TestSecondAgentOnAFolder is issue 29's second agent on one folder, as
// docs/sync.md says it: a second `run` on that one folder exits 1 at once
// naming the first one's pid; `run` on the registered checkouts leaves the
// held folder to its holder (said once, with the pid), keeps syncing the
// other checkout, and `status` shows the held folder as held by that pid.
func TestSecondAgentOnAFolder(t *testing.T) {
	w := newWorkstation(t)
	cos := w.loggedIn("acme/one", "acme/two")
	one, two := cos[0], cos[1]
	dirOne, dirTwo := w.teamDir(one), w.teamDir(two)

	first := w.agent(one, "", "run", "--debounce", "200ms", "--poll", "1s", "--repo-dir", one)
	t.Cleanup(func() { first.stop(t, syscall.SIGTERM) })
	pid := first.cmd.Process.Pid
	proctest.WaitFor(t, "the first agent to hold one's folder", func() bool {
		var st struct{ AgentPid int }
		out := w.agent(one, "", "status", "--json", "--repo-dir", one)
		out.wait()
		return json.Unmarshal([]byte(out.stdout.String()), &st) == nil && st.AgentPid == pid
	})

	start := time.Now()
	second := w.agent(one, "", "run", "--repo-dir", one)
	second.wait()
	if code := second.cmd.ProcessState.ExitCode(); code != 1 || !strings.Contains(second.stderr.String(), fmt.Sprintf("pid %d", pid)) {
		t.Errorf("a second run on the folder: exit %d after %v; want 1 at once, naming pid %d\n%s", code, time.Since(start), pid, second.stderr)
	}

	all := w.startRun()
	write(t, dirTwo, "two.md", "from two\n")
	proctest.WaitFor(t, "the other checkout synced by the registered run", func() bool { return w.srv.entries("acme/two")["two.md"] == "from two\n" })
	proctest.WaitFor(t, "the registered run to name the holder", func() bool {
		return strings.Contains(all.stderr.String(), fmt.Sprintf("pid %d", pid))
	})
	var st struct {
		Checkouts []struct {
			Repo         string
			AgentRunning bool
			AgentPid     int
		}
	}
	if err := json.Unmarshal([]byte(w.ok(w.home, "", "status", "--json")), &st); err != nil {
		t.Fatal(err)
	}
	for _, c := range st.Checkouts {
		if c.Repo == "acme/one" && (!c.AgentRunning || c.AgentPid != pid) {
			t.Errorf("status of the held folder: %+v; want held by pid %d", c, pid)
		}
	}
	if n := strings.Count(all.stderr.String(), "another teammem-agent holds this folder"); n != 1 {
		t.Errorf("the registered run said %d times that the folder is held; want once:\n%s", n, all.stderr)
	}
	// The first agent's edits still sync: it is the folder's agent.
	write(t, dirOne, "one.md", "from one\n")
	proctest.WaitFor(t, "the holder to push", func() bool { return w.srv.entries("acme/one")["one.md"] == "from one\n" })
	if code := all.stop(t, syscall.SIGTERM); code != 0 {
		t.Errorf("registered run exit %d:\n%s", code, all.stderr)
	}
}
