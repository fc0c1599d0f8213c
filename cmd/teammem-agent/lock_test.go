package main

import (
	"fmt"
	"log/slog"
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

// TestHeldFolderSaidOnce: the registered run says once per holder that a
// folder is held, at every retry only when the holder changed, and logs
// every other failure.
func TestHeldFolderSaidOnce(t *testing.T) {
	var buf strings.Builder
	onExit := heldOnce(slog.New(slog.NewTextHandler(&buf, nil)))
	key := agent.RunnerKey("/team", "acme/api", "http://s", "", "", nil)
	held := func(pid int) error { return fmt.Errorf("%w: pid %d holds /team", agent.ErrFolderLocked, pid) }
	onExit(key, held(41))
	onExit(key, held(41))
	onExit(key, held(42))
	onExit(key, fmt.Errorf("cannot reach the server"))
	onExit(key, fmt.Errorf("cannot reach the server"))
	out := buf.String()
	if n := strings.Count(out, "another teammem-agent holds this folder"); n != 2 {
		t.Errorf("said %d times that the folder is held; want 2 (pid 41 once, pid 42 once):\n%s", n, out)
	}
	if n := strings.Count(out, "cannot sync; trying again later"); n != 2 {
		t.Errorf("logged %d failures; want 2:\n%s", n, out)
	}
}
