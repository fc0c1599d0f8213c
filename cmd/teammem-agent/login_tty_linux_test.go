package main

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal pair: the controller (what a person's
// terminal emulator holds) and the terminal the program reads.
func openPTY(t *testing.T) (controller, tty *os.File) {
	t.Helper()
	c, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	if err := unix.IoctlSetPointerInt(int(c.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(c.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	tty, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tty.Close() })
	return c, tty
}

// drain returns what the terminal has written back to the controller so
// far (its echo), without waiting for more.
func drain(t *testing.T, controller *os.File) string {
	t.Helper()
	fd := int(controller.Fd())
	if err := unix.SetNonblock(fd, true); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := unix.Read(fd, buf)
		if n <= 0 || err != nil {
			return b.String()
		}
		b.Write(buf[:n])
	}
}

// TestLoginOnATerminal: on a terminal, login prompts on stderr, reads one
// line (no Ctrl-D needed) and does not echo the token.
func TestLoginOnATerminal(t *testing.T) {
	ts := newTestServer(t, true)
	tok := ts.token(t, "ana", time.Hour, "acme/*:read")
	controller, tty := openPTY(t)
	var out, errOut strings.Builder
	home := t.TempDir()
	e := &cliEnv{Stdout: &out, Stderr: &errOut, Stdin: tty, Cwd: home, Home: home, Getenv: func(string) string { return "" }}
	done := make(chan int, 1)
	go func() { done <- exitCode(e, run(t.Context(), e, []string{"login", "--server", ts.url})) }()
	time.Sleep(200 * time.Millisecond) // let login switch echo off before typing, as a person would
	if _, err := controller.WriteString(tok + "\n"); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("login exit %d: %s", code, errOut.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("login did not return after one line (does it wait for end of input?)")
	}
	if !strings.Contains(errOut.String(), "Token for "+ts.url+" (input hidden") {
		t.Errorf("no prompt on stderr: %q", errOut.String())
	}
	echoed := drain(t, controller)
	if strings.Contains(echoed, tok[:20]) {
		t.Errorf("the terminal echoed the token: %q", echoed)
	}
	if !strings.Contains(out.String(), "logged in to "+ts.url) {
		t.Errorf("stdout %q", out.String())
	}
}
