package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/teammem/teammem/client/agent"
)

// lockHolderEnv makes the test binary a lock holder: it takes the lock of
// the team folder given, prints "locked", and holds it until stdin closes.
const lockHolderEnv = "TEAMMEM_TEST_HOLD_LOCK"

func TestMain(m *testing.M) {
	if dir := os.Getenv(lockHolderEnv); dir != "" {
		l, err := agent.LockFolder(dir)
		if err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		fmt.Println("locked")
		io.Copy(io.Discard, os.Stdin)
		l.Release()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// startHolder starts another process holding the lock of the team folder
// dir; closing the returned writer lets it release and exit.
func startHolder(t *testing.T, dir string) (*exec.Cmd, io.WriteCloser) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), lockHolderEnv+"="+dir)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); cmd.Process.Kill(); cmd.Wait() })
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	if strings.TrimSpace(line) != "locked" {
		t.Fatalf("holder said %q", line)
	}
	return cmd, stdin
}

// TestCommandRefusesLockedFolder: a sync on a folder another agent holds
// fails naming that agent's pid and the folder, whatever its state
// directory.
func TestCommandRefusesLockedFolder(t *testing.T) {
	ts := newTestServer(t, false)
	dir := t.TempDir()
	env := agentEnv(t, ts, dir)
	env["TEAMMEM_STATE_DIR"] = t.TempDir() // another state directory than the holder's
	holder, _ := startHolder(t, dir)
	res := cli(t, t.Context(), env, "sync")
	real, _ := filepath.EvalSymlinks(dir)
	for _, want := range []string{"another teammem-agent is running", fmt.Sprintf("pid %d", holder.Process.Pid), real} {
		if res.code != 1 || !strings.Contains(res.stderr, want) {
			t.Errorf("exit %d stderr %q, want it to mention %q", res.code, res.stderr, want)
		}
	}
}
