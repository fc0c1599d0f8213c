package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// lockHolderEnv makes the test binary a lock holder: it takes the lock at
// the path given, prints "locked", and holds it until stdin closes.
const lockHolderEnv = "TEAMMEM_TEST_HOLD_LOCK"

func TestMain(m *testing.M) {
	if path := os.Getenv(lockHolderEnv); path != "" {
		l, err := acquireLock(path, "the test folder")
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

// startHolder starts another process holding the lock at path; closing the
// returned writer lets it release and exit.
func startHolder(t *testing.T, path string) (*exec.Cmd, io.WriteCloser) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), lockHolderEnv+"="+path)
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

func TestLockSecondProcessFails(t *testing.T) {
	path := lockPath(t.TempDir(), "/some/team")
	holder, stdin := startHolder(t, path)
	_, err := acquireLock(path, "the team folder /some/team")
	if !errors.Is(err, errLocked) {
		t.Fatalf("second lock: %v, want errLocked", err)
	}
	for _, want := range []string{fmt.Sprintf("pid %d", holder.Process.Pid), "/some/team", "stop it first"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	stdin.Close()
	holder.Wait()
	l, err := acquireLock(path, "x")
	if err != nil {
		t.Fatalf("after the holder released: %v", err)
	}
	l.Release()
}

func TestLockFreedWhenHolderIsKilled(t *testing.T) {
	path := lockPath(t.TempDir(), "/some/team")
	holder, _ := startHolder(t, path)
	holder.Process.Kill()
	holder.Wait()
	l, err := acquireLock(path, "x")
	if err != nil {
		t.Fatalf("after the holder was killed: %v", err)
	}
	l.Release()
}

func TestLockPathPerFolder(t *testing.T) {
	s := t.TempDir()
	if lockPath(s, "/a") == lockPath(s, "/b") || lockPath(s, "/a") != lockPath(s, "/a/") {
		t.Error("lock paths must differ per folder and ignore a trailing separator")
	}
	if filepath.Dir(lockPath(s, "/a")) != s {
		t.Error("lock file must live in the state directory")
	}
}

func TestCommandRefusesLockedFolder(t *testing.T) {
	ts := newTestServer(t, false)
	dir := t.TempDir()
	env := agentEnv(t, ts, dir)
	startHolder(t, lockPath(env["TEAMMEM_STATE_DIR"], dir))
	res := cli(t, t.Context(), env, "sync")
	if res.code != 1 || !strings.Contains(res.stderr, "another teammem-agent is running") {
		t.Errorf("exit %d stderr %q", res.code, res.stderr)
	}
}
