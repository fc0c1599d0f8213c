package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/teammem/teammem/testkit/servertest"
)

// TestLoginOnATerminalWithoutDisplay: on a terminal without a display
// (no DISPLAY, no WAYLAND_DISPLAY, no BROWSER), login with a server that
// offers sign-in shows a code rather than opening a browser or asking for
// a token.
func TestLoginOnATerminalWithoutDisplay(t *testing.T) {
	s := servertest.Start(t, servertest.Options{OAuth: true, OAuthDeviceInterval: time.Second})
	_, tty := openPTY(t)
	home, state := t.TempDir(), t.TempDir()
	var out bytes.Buffer
	errOut := &lineWriter{lines: make(chan string, 16)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		enterCode(t, s.URL, s.Token("ann", "acme/*:read"), "allow", errOut.lines)
	}()
	e := &cliEnv{Stdout: &out, Stderr: errOut, Stdin: tty, Cwd: home, Home: home,
		Getenv: func(k string) string { return map[string]string{"TEAMMEM_STATE_DIR": state}[k] }}
	code := exitCode(e, run(t.Context(), e, []string{"login", "--server", s.URL}))
	close(errOut.lines)
	<-done
	if code != 0 || !strings.Contains(out.String(), "with a code entered in the browser as ann;") {
		t.Fatalf("login: exit %d\n%s\n%s", code, out.String(), errOut.String())
	}
	if strings.Contains(errOut.String(), "Token for") || strings.Contains(errOut.String(), "/oauth/authorize") {
		t.Errorf("login asked for a token or opened a browser:\n%s", errOut.String())
	}
}
