package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/teammem/teammem/client/signin"
)

// signInFile is where a browser sign-in keeps its tokens, in the state
// directory (mode 0600).
const signInFile = "signin.json"

// offersBrowserSignIn reports whether the server is an OAuth
// authorization server the agent can sign in to through the browser.
func offersBrowserSignIn(ctx context.Context, server string) bool {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(server, "/")+"/.well-known/oauth-authorization-server", nil)
	if err != nil {
		return false
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// browserLogin signs the agent in through the browser and keeps the
// tokens in the state directory; it returns the file's path and who the
// agent is signed in as.
func browserLogin(ctx context.Context, e *cliEnv, c commonFlags) (string, string, error) {
	open := e.OpenURL
	if open == nil {
		open = openBrowser
	}
	return keepSignIn(ctx, e, c, "browser sign-in", func(ctx context.Context, name string) (signin.Tokens, error) {
		return signin.Login(ctx, signin.Options{Server: c.server, ClientName: name,
			Open: func(u string) error {
				fmt.Fprintf(e.Stderr, "Sign in to %s in your browser; if it does not open, open:\n  %s\n", c.server, u)
				if err := open(u); err != nil {
					fmt.Fprintf(e.Stderr, "(could not open a browser: %v)\n", err)
				}
				return nil
			}})
	})
}

// deviceLogin signs the agent in with a code the person enters in any
// browser (the device authorization grant) and keeps the tokens in the
// state directory; it returns the file's path and who the agent is signed
// in as.
func deviceLogin(ctx context.Context, e *cliEnv, c commonFlags) (string, string, error) {
	return keepSignIn(ctx, e, c, "device sign-in", func(ctx context.Context, name string) (signin.Tokens, error) {
		return signin.DeviceLogin(ctx, signin.DeviceOptions{Server: c.server, ClientName: name,
			Show: func(d signin.DeviceCode) {
				fmt.Fprintf(e.Stderr, "To sign in to %s, open in any browser\n  %s\nand enter the code\n  %s\n"+
					"(or open %s). The code expires in %s; waiting...\n",
					c.server, d.VerificationURI, d.UserCode, d.VerificationURIComplete, d.ExpiresIn)
			}})
	})
}

// keepSignIn runs a sign-in as "teammem-agent on <host>", within eleven
// minutes, and keeps its tokens in the state directory (mode 0600); it
// returns the file's path and the subject signed in.
func keepSignIn(ctx context.Context, e *cliEnv, c commonFlags, what string,
	login func(ctx context.Context, clientName string) (signin.Tokens, error)) (string, string, error) {
	stateDir, err := resolveStateDir(e, c)
	if err != nil {
		return "", "", err
	}
	host, _ := os.Hostname()
	ctx, cancel := context.WithTimeout(ctx, 11*time.Minute)
	defer cancel()
	t, err := login(ctx, "teammem-agent on "+host)
	if err != nil {
		return "", "", fmt.Errorf("%s: %w", what, err)
	}
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		return "", "", err
	}
	path := filepath.Join(stateDir, signInFile)
	return path, t.Subject, t.Save(path)
}

// canOpenBrowser reports whether this machine has a browser to open: a
// desktop (a display on Linux and the BSDs) with an opener, not a shell
// reached over SSH without a forwarded display.
func canOpenBrowser(e *cliEnv) bool {
	switch {
	case e.OpenURL != nil || e.Getenv("BROWSER") != "":
		return true
	case e.Getenv("DISPLAY") == "" && e.Getenv("WAYLAND_DISPLAY") == "" && e.Getenv("SSH_CONNECTION") != "":
		return false
	case runtime.GOOS == "darwin" || runtime.GOOS == "windows":
		return true
	case e.Getenv("DISPLAY") == "" && e.Getenv("WAYLAND_DISPLAY") == "":
		return false
	}
	_, err := exec.LookPath("xdg-open")
	return err == nil
}

// openBrowser opens u with the desktop's opener ($BROWSER first).
func openBrowser(u string) error {
	var cmd *exec.Cmd
	switch {
	case os.Getenv("BROWSER") != "":
		cmd = exec.Command(os.Getenv("BROWSER"), u)
	case runtime.GOOS == "darwin":
		cmd = exec.Command("open", u)
	case runtime.GOOS == "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", u)
	default:
		if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
			return errors.New("no display")
		}
		cmd = exec.Command("xdg-open", u)
	}
	return cmd.Start()
}

// signInSource is the token source of a browser sign-in kept for server
// in the state directory; nil when there is none.
func signInSource(e *cliEnv, c commonFlags, server string) func(context.Context) (string, error) {
	stateDir, err := resolveStateDir(e, c)
	if err != nil {
		return nil
	}
	path := filepath.Join(stateDir, signInFile)
	t, err := signin.Load(path)
	if err != nil || t.Server != strings.TrimRight(server, "/") {
		return nil
	}
	return signin.Source(path, nil)
}

// signInLine says who the agent is signed in as through the browser and
// until when ("" without a browser sign-in for the session's server).
func (s *session) signInLine() string {
	if s.stateDir == "" || s.server == "" || s.flags.token != "" || s.flags.tokenFile != "" {
		return ""
	}
	t, err := signin.Load(filepath.Join(s.stateDir, signInFile))
	if err != nil || t.Server != strings.TrimRight(s.server, "/") {
		return ""
	}
	line := orDefault(t.Subject, "(unknown)") + " through the browser"
	if !t.Until.IsZero() {
		line += ", until " + t.Until.Local().Format(time.RFC3339) + " (its access token renewed silently); then log in again"
	}
	return line
}
