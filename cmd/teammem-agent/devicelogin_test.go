package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/client"
	"github.com/teammem/teammem/client/signin"
	"github.com/teammem/teammem/testkit/servertest"
)

// lineWriter hands each line written to it to a channel, so a test can
// act on the agent's words while it runs.
type lineWriter struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	all   bytes.Buffer
	lines chan string
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.all.Write(p)
	w.buf.Write(p)
	for {
		line, err := w.buf.ReadString('\n')
		if err != nil {
			w.buf.WriteString(line)
			return len(p), nil
		}
		select {
		case w.lines <- line:
		default:
		}
	}
}

func (w *lineWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.all.String()
}

var userCodeLine = regexp.MustCompile(`^\s+([B-Z]{4}-[B-Z]{4})\s*$`)

// enterCode is the person: signed in to the web UI with token, they wait
// for the agent to show a code, enter it on the device page and answer.
func enterCode(t *testing.T, base, token, decision string, lines <-chan string) {
	jar, _ := cookiejar.New(nil)
	hc := &http.Client{Jar: jar}
	if resp, err := hc.PostForm(base+"/ui/login", url.Values{"token": {token}}); err != nil {
		t.Error(err)
		return
	} else {
		resp.Body.Close()
	}
	for line := range lines {
		m := userCodeLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		resp, err := hc.Get(base + "/ui/device?user_code=" + m[1])
		if err != nil {
			t.Error(err)
			return
		}
		page, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		form := url.Values{"decision": {decision}}
		for _, f := range hiddenField.FindAllStringSubmatch(string(page), -1) {
			form.Set(f[1], f[2])
		}
		resp, err = hc.PostForm(base+"/ui/device", form)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Errorf("answer the device page: %v %v", resp, err)
		}
		resp.Body.Close()
		return
	}
}

// TestLoginWithDevice: login --device shows a code; once the person
// enters it in a browser signed in to the web UI and allows, the agent
// keeps the sign-in (0600) and pulls as that person. Denied, it says so.
func TestLoginWithDevice(t *testing.T) {
	s := servertest.Start(t, servertest.Options{Org: "test", OAuth: true, OAuthDeviceInterval: time.Second})
	admin, err := client.New(client.Options{BaseURL: s.URL, Token: s.Admin})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Put(t.Context(), "acme/api", api.PutRequest{Entries: map[string]string{"deploy.md": "ship it\n"}}, ""); err != nil {
		t.Fatal(err)
	}
	home, state, dir := t.TempDir(), t.TempDir(), t.TempDir()
	env := map[string]string{"TEAMMEM_STATE_DIR": state}
	agent := func(person, decision string, args ...string) (int, string, string) {
		var out bytes.Buffer
		errOut := &lineWriter{lines: make(chan string, 16)}
		done := make(chan struct{})
		if person != "" {
			go func() {
				defer close(done)
				enterCode(t, s.URL, s.Token(person, "acme/*:write"), decision, errOut.lines)
			}()
		} else {
			close(done)
		}
		e := &cliEnv{Stdout: &out, Stderr: errOut, Stdin: strings.NewReader(""), Cwd: dir, Home: home,
			Getenv: func(k string) string { return env[k] }}
		code := exitCode(e, run(context.Background(), e, args))
		close(errOut.lines)
		<-done
		return code, out.String(), errOut.String()
	}
	code, _, errs := agent("bob", "deny", "login", "--server", s.URL, "--device")
	if code == 0 || !strings.Contains(errs, "declined") {
		t.Errorf("login denied: exit %d\n%s", code, errs)
	}
	code, out, errs := agent("ann", "allow", "login", "--server", s.URL, "--device")
	if code != 0 || !strings.Contains(out, "signed in to "+s.URL+" with a code entered in the browser as ann;") ||
		!strings.Contains(errs, s.URL+"/ui/device") {
		t.Fatalf("login: exit %d\n%s\n%s", code, out, errs)
	}
	path := filepath.Join(state, signInFile)
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("sign-in file: %v %v; want mode 0600", fi, err)
	}
	if tok, _ := signin.Load(path); tok.Subject != "ann" || tok.RefreshToken == "" {
		t.Errorf("the sign-in kept: %+v; want ann's, with a refresh token", tok)
	}
	env["TEAMMEM_REPO"], env["TEAMMEM_DIR"] = "acme/api", dir
	if code, _, errs := agent("", "", "pull"); code != 0 {
		t.Fatalf("pull: exit %d %s", code, errs)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "deploy.md")); string(got) != "ship it\n" {
		t.Errorf("deploy.md = %q", got)
	}
	if code, _, errs := agent("", "", "login", "--server", s.URL, "--device", "--browser"); code == 0 || !strings.Contains(errs, "not both") {
		t.Errorf("--device --browser: exit %d %s", code, errs)
	}
}

// TestCanOpenBrowser: without a display (or over SSH without a forwarded
// one) the agent signs in with a code instead of opening a browser.
func TestCanOpenBrowser(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("displays are Linux's")
	}
	for name, tc := range map[string]struct {
		env  map[string]string
		want bool
	}{
		"BROWSER set":           {map[string]string{"BROWSER": "w3m"}, true},
		"ssh without a display": {map[string]string{"SSH_CONNECTION": "10.0.0.1 22 10.0.0.2 5555"}, false},
		"no display":            {map[string]string{}, false},
	} {
		e := &cliEnv{Getenv: func(k string) string { return tc.env[k] }}
		if got := canOpenBrowser(e); got != tc.want {
			t.Errorf("%s: canOpenBrowser = %v; want %v", name, got, tc.want)
		}
	}
}
