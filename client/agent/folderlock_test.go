package agent

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// folderHolderEnv makes the test binary hold the lock of a team folder:
// "<lock dir>" os.PathListSeparator "<folder>"; it prints "locked" and holds
// the lock until its stdin closes.
const folderHolderEnv = "TEAMMEM_TEST_HOLD_FOLDER"

// holdFolderIfAsked runs the holder when the test binary is one.
func init() {
	v := os.Getenv(folderHolderEnv)
	if v == "" {
		return
	}
	lockDir, dir, _ := strings.Cut(v, string(os.PathListSeparator))
	lockDirOverride = lockDir
	l, err := LockFolder(dir)
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	fmt.Println("locked")
	io.Copy(io.Discard, os.Stdin)
	l.Release()
	os.Exit(0)
}

// useLockDir points LockDir at a fresh folder for the test.
func useLockDir(t *testing.T) string {
	d := filepath.Join(t.TempDir(), "locks")
	lockDirOverride = d
	t.Cleanup(func() { lockDirOverride = "" })
	return d
}

// startFolderHolder starts another process holding the lock of dir.
func startFolderHolder(t *testing.T, lockDir, dir string) (*exec.Cmd, io.WriteCloser) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), folderHolderEnv+"="+lockDir+string(os.PathListSeparator)+dir)
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

func TestLockFolderSecondProcessFails(t *testing.T) {
	lockDir, dir := useLockDir(t), t.TempDir()
	holder, stdin := startFolderHolder(t, lockDir, dir)
	if !FolderLocked(dir) {
		t.Error("FolderLocked = false while another process holds it")
	}
	_, err := LockFolder(dir)
	if !errors.Is(err, ErrFolderLocked) {
		t.Fatalf("second lock: %v, want ErrFolderLocked", err)
	}
	st, err2 := ReadStatus(context.Background(), StatusOptions{Repo: testRepo, Dir: dir, StateDir: t.TempDir(), Server: "https://x"})
	if err2 != nil || !st.AgentRunning || st.AgentPID != holder.Process.Pid {
		t.Errorf("status = running %v, pid %d, %v; want the holder's pid %d", st.AgentRunning, st.AgentPID, err2, holder.Process.Pid)
	}
	for _, want := range []string{fmt.Sprintf("pid %d", holder.Process.Pid), ResolveFolder(dir), "stop it first"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	stdin.Close()
	holder.Wait()
	l, err := LockFolder(dir)
	if err != nil {
		t.Fatalf("after the holder released: %v", err)
	}
	l.Release()
	if FolderLocked(dir) {
		t.Error("FolderLocked = true after release")
	}
}

func TestLockFolderFreedWhenHolderIsKilled(t *testing.T) {
	lockDir, dir := useLockDir(t), t.TempDir()
	holder, _ := startFolderHolder(t, lockDir, dir)
	holder.Process.Kill()
	holder.Wait()
	l, err := LockFolder(dir)
	if err != nil {
		t.Fatalf("after the holder was killed: %v", err)
	}
	l.Release()
}

// TestFolderLockPath: one lock per resolved folder, in the lock folder,
// the same through a symlink or with a trailing separator.
func TestFolderLockPath(t *testing.T) {
	lockDir := useLockDir(t)
	real := t.TempDir()
	other := t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(real, link); err != nil {
		t.Skip(err)
	}
	p := func(d string) string {
		path, err := FolderLockPath(d)
		if err != nil {
			t.Fatal(err)
		}
		return path
	}
	if p(real) != p(link) || p(real) != p(real+"/") {
		t.Error("one folder through a link or a trailing separator must have one lock")
	}
	if p(real) == p(other) {
		t.Error("two folders share a lock")
	}
	if filepath.Dir(p(real)) != lockDir {
		t.Errorf("lock %s not in the lock folder %s", p(real), lockDir)
	}
	l, err := LockFolder(link)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	if _, err := LockFolder(real); !errors.Is(err, ErrFolderLocked) {
		t.Errorf("lock through the real path while held through a link: %v", err)
	}
}

// TestLockDirIgnoresEnvironment: the lock folder does not move with HOME,
// XDG_STATE_HOME or TMPDIR, so agents with different environments and
// state directories still meet there.
func TestLockDirIgnoresEnvironment(t *testing.T) {
	a, err := LockDir()
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"HOME", "XDG_STATE_HOME", "TMPDIR", "XDG_RUNTIME_DIR"} {
		t.Setenv(k, t.TempDir())
	}
	if b, _ := LockDir(); a != b {
		t.Errorf("LockDir moved with the environment: %s → %s", a, b)
	}
}
