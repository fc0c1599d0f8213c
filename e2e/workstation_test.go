//go:build unix

package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/client"
	"github.com/teammem/teammem/testkit/gittest"
	"github.com/teammem/teammem/testkit/proctest"
)

// workstation is a developer's machine: a home of its own (config and
// state under it) and an authenticating server.
type workstation struct {
	t     *testing.T
	home  string
	srv   *serverProc
	token string
}

func newWorkstation(t *testing.T) *workstation {
	t.Helper()
	data := t.TempDir()
	srv := &serverProc{proc: startProc(t, serverBin, "serve", "--addr", "127.0.0.1:0", "--data-dir", data, "--rate-limit", "0"), dataDir: data}
	proctest.WaitFor(t, "the server to listen", func() bool {
		if m := listenRE.FindStringSubmatch(srv.stderr.String()); m != nil {
			srv.addr = m[1]
			return true
		}
		return srv.cmd.ProcessState != nil
	})
	w := &workstation{t: t, home: t.TempDir(), srv: srv, token: issue(t, data, "dev", "acme/**:write")}
	var err error
	if srv.api, err = client.New(client.Options{BaseURL: srv.url(), Token: w.token}); err != nil {
		t.Fatal(err)
	}
	return w
}

// env is the agent's environment on this workstation.
func (w *workstation) env(cmd *exec.Cmd) {
	cmd.Env = append(cmd.Env, "HOME="+w.home, "XDG_CONFIG_HOME="+filepath.Join(w.home, ".config"),
		"XDG_STATE_HOME="+filepath.Join(w.home, ".local", "state"))
}

// agent starts teammem-agent in dir with stdin.
func (w *workstation) agent(dir, stdin string, args ...string) *proc {
	w.t.Helper()
	return startProcWith(w.t, func(cmd *exec.Cmd) {
		w.env(cmd)
		cmd.Dir = dir
		cmd.Stdin = strings.NewReader(stdin)
	}, agentBin, args...)
}

// ok runs an agent command that must succeed and returns its stdout.
func (w *workstation) ok(dir, stdin string, args ...string) string {
	w.t.Helper()
	p := w.agent(dir, stdin, args...)
	if err := p.wait(); err != nil {
		w.t.Fatalf("teammem-agent %v: %v\nstdout:\n%s\nstderr:\n%s", args, err, p.stdout, p.stderr)
	}
	return p.stdout.String()
}

// teamDir is the team folder the agent derives for a checkout.
func (w *workstation) teamDir(checkout string) string { return w.paths(checkout).TeamDir }

// memDir is the private memory folder the agent derives for a checkout.
func (w *workstation) memDir(checkout string) string { return w.paths(checkout).AutoMemDir }

// paths are the memory folders the agent derives for a checkout.
func (w *workstation) paths(checkout string) (p struct{ TeamDir, AutoMemDir string }) {
	w.t.Helper()
	if err := json.Unmarshal([]byte(w.ok(checkout, "", "memory", "paths", "--json")), &p); err != nil || p.TeamDir == "" || p.AutoMemDir == "" {
		w.t.Fatalf("memory paths: %v", err)
	}
	return p
}

// TestWorkstation is the path of a developer: log in once, register
// checkouts of two repositories (and a linked worktree of one, which
// shares its team folder), run one agent for all of them, add and remove
// checkouts while it runs.
func TestWorkstation(t *testing.T) {
	w := newWorkstation(t)
	one, oneLinked := gittest.NewCheckout(t, "git@github.com:acme/one.git")
	two, _ := gittest.NewCheckout(t, "https://github.com/acme/two.git")
	three, _ := gittest.NewCheckout(t, "https://github.com/acme/three.git")

	bad := w.agent(one, "not-a-token\n", "login", "--server", w.srv.url())
	if err := bad.wait(); err == nil || !strings.Contains(bad.stderr.String(), w.srv.url()) {
		t.Errorf("login with a bad token: %v, stderr %s", err, bad.stderr)
	}
	config := filepath.Join(w.home, ".config", "teammem", "agent.toml")
	if _, err := os.Stat(config); !os.IsNotExist(err) {
		t.Errorf("a refused login wrote the configuration: %v", err)
	}
	w.ok(one, w.token+"\n", "login", "--server", w.srv.url())
	if fi, err := os.Stat(config); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("configuration after login: %v %v; want mode 0600", fi, err)
	}

	w.ok(one, "", "add")                    // the working directory
	w.ok(t.TempDir(), "", "add", oneLinked) // another checkout of the same repository
	w.ok(two, "", "add", ".")
	dirOne, dirTwo, dirThree := w.teamDir(one), w.teamDir(two), w.teamDir(three)
	if w.teamDir(oneLinked) != dirOne {
		t.Fatalf("the linked worktree has another team folder")
	}

	run := w.agent(w.home, "", "run", "--debounce", "200ms", "--max-delay", "1s", "--poll", "1s", "--json")
	t.Cleanup(func() { run.stop(t, syscall.SIGTERM) })
	write(t, dirOne, "one.md", "from one\n")
	write(t, dirTwo, "two.md", "from two\n")
	proctest.WaitFor(t, "both checkouts pushed", func() bool {
		return w.srv.entries("acme/one")["one.md"] == "from one\n" && w.srv.entries("acme/two")["two.md"] == "from two\n"
	})
	put := func(repo, key, content string) {
		t.Helper()
		h, err := w.srv.api.Hashes(context.Background(), repo)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.srv.api.Put(context.Background(), repo, api.PutRequest{Entries: map[string]string{key: content}}, h.Checksum); err != nil {
			t.Fatal(err)
		}
	}
	put("acme/two", "teammate.md", "from a teammate\n")
	proctest.WaitFor(t, "the teammate's note in checkout two", func() bool { return read(dirTwo, "teammate.md") == "from a teammate\n" })

	w.ok(three, "", "add") // picked up without a restart
	write(t, dirThree, "three.md", "from three\n")
	proctest.WaitFor(t, "the added checkout pushed", func() bool { return w.srv.entries("acme/three")["three.md"] == "from three\n" })

	w.ok(w.home, "", "remove", two)
	proctest.WaitFor(t, "the removed checkout's engine to stop", func() bool {
		return regexp.MustCompile(`stopped.*repo=acme/two`).MatchString(run.stderr.String())
	})

	var st struct {
		Checkouts []struct {
			Repo         string
			AgentRunning bool
		}
	}
	if err := json.Unmarshal([]byte(w.ok(w.home, "", "status", "--json")), &st); err != nil {
		t.Fatal(err)
	}
	var repos []string
	for _, c := range st.Checkouts {
		repos = append(repos, c.Repo)
		if !c.AgentRunning {
			t.Errorf("status of %s: agent not running", c.Repo)
		}
	}
	if strings.Join(repos, " ") != "acme/one acme/one acme/three" {
		t.Errorf("status lists %q; want acme/one (twice: two checkouts) and acme/three", repos)
	}
	if code := run.stop(t, syscall.SIGTERM); code != 0 {
		t.Errorf("run exit %d; stderr:\n%s", code, run.stderr)
	}
	if n := strings.Count(run.stderr.String(), "msg=syncing "); n != 4 {
		t.Errorf("%d engines started; want 4 (one, two, three: the linked worktree shares one's; acme's org memory, once):\n%s", n, run.stderr)
	}
}

// execStartRE finds the quoted words of a unit's ExecStart line.
var execStartRE = regexp.MustCompile(`"((?:[^"\\]|\\.)*)"`)

// TestServiceInstall installs the systemd user unit into the
// workstation's config home, checks it with systemd-analyze when present,
// and runs its ExecStart as the user manager would: the registered
// checkout syncs, and SIGTERM (the unit's KillSignal) ends it with 0.
func TestServiceInstall(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("systemd user units are Linux's")
	}
	w := newWorkstation(t)
	checkout, _ := gittest.NewCheckout(t, "git@github.com:acme/svc.git")
	if p := w.agent(w.home, "", "service", "install", "--no-start"); p.wait() == nil ||
		!strings.Contains(p.stderr.String(), "log in first") {
		t.Errorf("install before login: stderr %s", p.stderr)
	}
	w.ok(checkout, w.token, "login", "--server", w.srv.url())
	w.ok(checkout, "", "add")
	if out := w.ok(w.home, "", "service", "install", "--no-start"); !strings.Contains(out, "start it:  systemctl --user daemon-reload && systemctl --user enable --now teammem-agent.service") {
		t.Errorf("service install --no-start does not say how to start the service:\n%s", out)
	}
	unitPath := filepath.Join(w.home, ".config", "systemd", "user", "teammem-agent.service")
	unit, err := os.ReadFile(unitPath)
	if err != nil {
		t.Fatal(err)
	}
	if analyze, err := exec.LookPath("systemd-analyze"); err == nil {
		if out, err := exec.Command(analyze, "verify", unitPath).CombinedOutput(); err != nil || len(out) > 0 {
			t.Errorf("systemd-analyze verify: %v\n%s", err, out)
		}
	}
	var execStart []string
	for _, line := range strings.Split(string(unit), "\n") {
		if rest, ok := strings.CutPrefix(line, "ExecStart="); ok {
			for _, m := range execStartRE.FindAllStringSubmatch(rest, -1) {
				word := strings.NewReplacer(`\"`, `"`, `\\`, `\`, "%%", "%", "$$", "$").Replace(m[1])
				execStart = append(execStart, word)
			}
		}
	}
	if len(execStart) != 4 || execStart[1] != "run" || execStart[3] != filepath.Join(w.home, ".config", "teammem", "agent.toml") {
		t.Fatalf("ExecStart = %q", execStart)
	}
	svc := startProcWith(t, func(cmd *exec.Cmd) { cmd.Env = append(cmd.Env, "HOME="+w.home) }, execStart[0], execStart[1:]...)
	write(t, w.teamDir(checkout), "svc.md", "started at login\n")
	proctest.WaitFor(t, "the service to push", func() bool { return w.srv.entries("acme/svc")["svc.md"] == "started at login\n" })
	if code := svc.stop(t, syscall.SIGTERM); code != 0 {
		t.Errorf("the service's run exit %d:\n%s", code, svc.stderr)
	}

	var st struct {
		Path      string
		Installed bool
	}
	if err := json.Unmarshal([]byte(w.ok(w.home, "", "service", "status", "--no-start", "--json")), &st); err != nil ||
		!st.Installed || st.Path != unitPath {
		t.Errorf("service status = %+v, %v", st, err)
	}
	w.ok(w.home, "", "service", "uninstall", "--no-start")
	if _, err := os.Stat(unitPath); !os.IsNotExist(err) {
		t.Errorf("unit after uninstall: %v", err)
	}
}
