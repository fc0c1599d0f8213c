//go:build unix

package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/client/agent"
	"github.com/teammem/teammem/client/signin"
	"github.com/teammem/teammem/testkit/proctest"
)

var userCodeRE = regexp.MustCompile(`^\s+([B-Z]{4}-[B-Z]{4})$`)

// TestAgentDeviceLogin: the real agent, on a machine without a display,
// runs `login --device`; Chromium, signed in to the web UI, enters the code
// the agent shows and allows it; the agent keeps the sign-in (0600) and
// no token in agent.toml. Its `run` then keeps syncing a teammate's
// changes well past its access tokens' lifetime and the server's leeway
// (2 s + 30 s), renewing them silently; `status` says who and until when.
func TestAgentDeviceLogin(t *testing.T) {
	srv := startAuthServer(t, "--oauth-access-ttl", "2s")
	b := &tab{t: t, ctx: newBrowser(t), base: srv.url()}
	b.signIn(srv.token(t, "ann", "acme/**:write"))
	home, state, dir := t.TempDir(), t.TempDir(), t.TempDir()
	env := func(c *exec.Cmd) {
		c.Env = append(c.Env, "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "DISPLAY=", "WAYLAND_DISPLAY=")
		c.Stdin = strings.NewReader("")
	}
	login := startProcWith(t, env, agentBin, "login", "--server", srv.url(), "--device", "--state-dir", state)
	var code string
	proctest.WaitFor(t, "the agent to show a code", func() bool {
		for _, line := range login.stderr.snapshot() {
			if m := userCodeRE.FindStringSubmatch(line); m != nil {
				code = m[1]
				return true
			}
		}
		return login.cmd.ProcessState != nil
	})
	if code == "" {
		t.Fatalf("login --device showed no code:\n%s", login.stderr)
	}
	if st := b.open("/ui/device?user_code=" + code); st != 200 {
		t.Fatalf("device page: %d", st)
	}
	if text := b.text(); !strings.Contains(text, "teammem-agent on ") || !strings.Contains(text, code) || !strings.Contains(text, "acme/**:write") {
		t.Errorf("the device page does not name the agent, the code and the grants:\n%s", text)
	}
	b.screenshot("device-consent")
	if st := b.click(`button[value=allow]`); st != 200 || !strings.Contains(b.text(), "Device signed in") {
		t.Errorf("allow: %d %s", st, b.text())
	}
	if err := login.wait(); err != nil {
		t.Fatalf("login --device: %v\n%s\n%s", err, login.stdout, login.stderr)
	}
	t.Logf("login --device transcript:\n%s\n%s", login.stderr, login.stdout)
	if out := login.stdout.String(); !strings.Contains(out, "signed in to "+srv.url()+" with a code entered in the browser as ann;") {
		t.Errorf("login said: %s", out)
	}
	path := filepath.Join(state, "signin.json")
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("sign-in file: %v %v; want mode 0600", fi, err)
	}
	first, _ := signin.Load(path)
	if cfg, _ := os.ReadFile(filepath.Join(home, ".config", "teammem", "agent.toml")); strings.Contains(string(cfg), "token") {
		t.Errorf("agent.toml holds a token after a device sign-in:\n%s", cfg)
	}

	share := func(key, content string) {
		if _, err := srv.api.Put(context.Background(), repo, api.PutRequest{Entries: map[string]string{key: content}}, ""); err != nil {
			t.Fatal(err)
		}
	}
	arrives := func(key, content string) {
		proctest.WaitFor(t, key+" to arrive", func() bool {
			got, _ := os.ReadFile(filepath.Join(dir, key))
			return string(got) == content
		})
	}
	journal := agent.ServerJournalPath(state, srv.id(t), repo, dir)
	run := startProcWith(t, env, agentBin, append([]string{"run", "--debounce", "300ms", "--max-delay", "2s", "--poll", "1s"},
		runArgs(srv.serverProc, dir, state)...)...)
	proctest.WaitFor(t, "the agent's first sync", func() bool { _, err := os.Stat(journal); return err == nil })
	share("deploy.md", "ship it\n")
	arrives("deploy.md", "ship it\n")
	time.Sleep(2*time.Second + serverLeeway + time.Second)
	share("deploy.md", "ship it on Fridays too\n")
	arrives("deploy.md", "ship it on Fridays too\n")
	if err := os.WriteFile(filepath.Join(dir, "mine.md"), []byte("from ann's machine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	proctest.WaitFor(t, "ann's entry to reach the server", func() bool { return srv.entries(repo)["mine.md"] == "from ann's machine\n" })
	if later, _ := signin.Load(path); later.AccessToken == first.AccessToken || later.RefreshToken == first.RefreshToken {
		t.Errorf("the access token was not renewed, or the refresh token did not rotate")
	}
	for _, r := range run.reports(t) {
		if r.Error != "" {
			t.Errorf("run reported an error: %s", r.Error)
		}
	}
	st := startProcWith(t, env, agentBin, "status", "--server", srv.url(), "--state-dir", state, "--repo", repo, "--dir", dir)
	st.wait()
	if out := st.stdout.String(); !strings.Contains(out, "ann through the browser, until ") {
		t.Errorf("status does not say who and until when:\n%s", out)
	}
}
