//go:build linux

package proctest

import (
	"bufio"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

const childEnv = "PROCTEST_ORPHAN_MAKER"

// TestMain doubles as a program that starts a grandchild through Own and
// then dies without running any cleanup, as a test binary does on a timeout
// panic or a kill.
func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		cmd := exec.Command("sleep", "60")
		setGroup(cmd)
		if err := cmd.Start(); err != nil {
			os.Exit(2)
		}
		os.Stdout.WriteString(strconv.Itoa(cmd.Process.Pid) + "\n")
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// eventually polls cond for up to 10 s.
func eventually(cond func() bool) bool {
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if cond() {
			return true
		}
	}
	return cond()
}

func TestGroupEndedWithTheTest(t *testing.T) {
	var pgid int
	t.Run("owner", func(t *testing.T) {
		// The shell starts grandchildren that outlive it unless the
		// whole group is ended.
		cmd := Command(t, "sh", "-c", "sleep 60 & sleep 60 & wait")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		pgid = cmd.Process.Pid
		go cmd.Wait()
		if !Alive(pgid) {
			t.Fatal("group not running after start")
		}
	})
	if !eventually(func() bool { return !Alive(pgid) }) {
		t.Fatalf("process group %d still alive after its test ended", pgid)
	}
}

func TestGroupIgnoringTermIsKilled(t *testing.T) {
	var pgid int
	var ended time.Time
	t.Run("owner", func(t *testing.T) {
		cmd := Command(t, "sh", "-c", "trap '' TERM; sleep 60 & echo ready; wait; sleep 60")
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		pgid = cmd.Process.Pid
		go cmd.Wait()
		if line, _ := bufio.NewReader(out).ReadString('\n'); line != "ready\n" {
			t.Fatalf("shell said %q", line)
		}
		ended = time.Now()
	})
	if !eventually(func() bool { return !Alive(pgid) }) {
		t.Fatalf("a group that ignores SIGTERM survived SIGKILL")
	}
	if d := time.Since(ended); d < Grace {
		t.Errorf("group ended %v after its test, before the %v grace period: was it sent SIGKILL first?", d, Grace)
	}
}

func TestChildDiesWithItsParent(t *testing.T) {
	parent := exec.Command(os.Args[0], "-test.run=^$")
	parent.Env = append(os.Environ(), childEnv+"=1")
	out, err := parent.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	parent.Wait()
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatalf("parent printed %q", line)
	}
	// The orphan is reparented to init (or a subreaper) and reaped there
	// once the kernel has killed it.
	if !eventually(func() bool { return !Alive(pid) }) {
		t.Fatalf("child %d outlived the process that started it", pid)
	}
}
