package filelock

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

func TestTryLockExcludesSecondHolder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.lock")
	l, err := TryLock(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.WritePID(); err != nil {
		t.Fatal(err)
	}
	if _, err := TryLock(path); !errors.Is(err, ErrLocked) {
		t.Fatalf("second TryLock: %v, want ErrLocked", err)
	}
	if !Held(path) {
		t.Error("Held = false while held")
	}
	if got := HolderPID(path); got != os.Getpid() {
		t.Errorf("HolderPID = %d, want %d", got, os.Getpid())
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	if Held(path) {
		t.Error("Held = true after Release")
	}
	l2, err := TryLock(path)
	if err != nil {
		t.Fatalf("TryLock after Release: %v", err)
	}
	l2.Release()
	if err := (*Lock)(nil).Release(); err != nil {
		t.Error(err)
	}
}

func TestHeldMissingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "none.lock")
	if Held(path) {
		t.Error("Held on a missing file")
	}
	if _, err := os.Stat(path); err == nil {
		t.Error("Held created the file")
	}
	if HolderPID(path) != 0 {
		t.Error("HolderPID of a missing file")
	}
}

// TestLockDiesWithProcess checks that the OS drops the lock of a process
// that is killed: a helper process takes it and is killed.
func TestLockDiesWithProcess(t *testing.T) {
	if os.Getenv("FILELOCK_HELPER") != "" {
		l, err := TryLock(os.Getenv("FILELOCK_HELPER"))
		if err != nil {
			os.Exit(3)
		}
		l.WritePID()
		os.Stdout.WriteString("locked\n")
		select {}
	}
	path := filepath.Join(t.TempDir(), "p.lock")
	cmd := exec.Command(os.Args[0], "-test.run=^TestLockDiesWithProcess$")
	cmd.Env = append(os.Environ(), "FILELOCK_HELPER="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	buf := make([]byte, 7)
	if _, err := out.Read(buf); err != nil || string(buf) != "locked\n" {
		t.Fatalf("helper: %q %v", buf, err)
	}
	if _, err := TryLock(path); !errors.Is(err, ErrLocked) {
		t.Fatalf("TryLock while the helper holds it: %v", err)
	}
	if got := HolderPID(path); got != cmd.Process.Pid {
		t.Errorf("HolderPID = %d, want %d", got, cmd.Process.Pid)
	}
	cmd.Process.Kill()
	cmd.Wait()
	l, err := TryLock(path)
	if err != nil {
		t.Fatalf("TryLock after the holder died: %v", err)
	}
	l.Release()
}

func TestWaitUnlock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w.lock")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := Wait(f); err != nil {
		t.Fatal(err)
	}
	if _, err := TryLock(path); !errors.Is(err, ErrLocked) {
		t.Fatalf("TryLock while Wait holds it: %v", err)
	}
	if err := Unlock(f); err != nil {
		t.Fatal(err)
	}
	l, err := TryLock(path)
	if err != nil {
		t.Fatal(err)
	}
	l.Release()
}
