package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/teammem/teammem/client/agent"
)

// TestCommandRefusesLockedFolder: a sync on a folder another agent holds
// fails naming that agent's pid and the folder, whatever its state
// directory. The holder here is this process (a lock taken on another open
// file excludes like another process's; client/agent and e2e test that).
func TestCommandRefusesLockedFolder(t *testing.T) {
	ts := newTestServer(t, false)
	dir := t.TempDir()
	env := agentEnv(t, ts, dir)
	l, err := agent.LockFolder(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	res := cli(t, t.Context(), env, "sync")
	real, _ := filepath.EvalSymlinks(dir)
	for _, want := range []string{"another teammem-agent is running", fmt.Sprintf("pid %d", os.Getpid()), real} {
		if res.code != 1 || !strings.Contains(res.stderr, want) {
			t.Errorf("exit %d stderr %q, want it to mention %q", res.code, res.stderr, want)
		}
	}
}
