//go:build unix

package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/teammem/teammem/client"
	"github.com/teammem/teammem/client/agent"
	"github.com/teammem/teammem/testkit/proctest"
)

// repo is the repository every test syncs.
const repo = "acme/e2e"

// lineLog collects a process's output lines; safe for concurrent use.
type lineLog struct {
	mu    sync.Mutex
	lines []string
	added chan struct{} // closed and replaced on every line
}

func newLineLog() *lineLog { return &lineLog{added: make(chan struct{})} }

// follow reads r into the log until EOF; done is closed then.
func (l *lineLog) follow(r io.Reader, done chan<- struct{}) {
	defer close(done)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		l.mu.Lock()
		l.lines = append(l.lines, sc.Text())
		close(l.added)
		l.added = make(chan struct{})
		l.mu.Unlock()
	}
}

// snapshot returns the lines so far.
func (l *lineLog) snapshot() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.lines...)
}

func (l *lineLog) String() string { return strings.Join(l.snapshot(), "\n") }

// proc is a started program with its output followed.
type proc struct {
	cmd            *exec.Cmd
	stdout, stderr *lineLog
	outDone        chan struct{}
	errDone        chan struct{}
	waitOnce       sync.Once
	waitErr        error
}

// startProc starts bin with args in a process group of its own; the
// process is killed at test end if still running, and anything left of its
// group is ended after it (testkit/proctest).
func startProc(t testing.TB, bin string, args ...string) *proc {
	t.Helper()
	return startProcWith(t, nil, bin, args...)
}

// startProcWith is startProc with setup changing the command (its folder,
// environment or stdin) before it starts.
func startProcWith(t testing.TB, setup func(*exec.Cmd), bin string, args ...string) *proc {
	t.Helper()
	p := &proc{cmd: proctest.Command(t, bin, args...), stdout: newLineLog(), stderr: newLineLog(),
		outDone: make(chan struct{}), errDone: make(chan struct{})}
	p.cmd.Env = cleanEnv()
	if setup != nil {
		setup(p.cmd)
	}
	so, _ := p.cmd.StdoutPipe()
	se, _ := p.cmd.StderrPipe()
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go p.stdout.follow(so, p.outDone)
	go p.stderr.follow(se, p.errDone)
	t.Cleanup(func() { p.cmd.Process.Kill(); p.wait() })
	return p
}

// cleanEnv is the environment of the programs: the test's, without any
// TEAMMEM_ variable that could change what they do.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TEAMMEM_") {
			env = append(env, kv)
		}
	}
	return env
}

// wait waits for the process to exit (once) and for its output.
func (p *proc) wait() error {
	p.waitOnce.Do(func() {
		<-p.outDone
		<-p.errDone
		p.waitErr = p.cmd.Wait()
	})
	return p.waitErr
}

// stop sends sig and waits up to 20 s for the exit; it returns the exit
// code.
func (p *proc) stop(t testing.TB, sig syscall.Signal) int {
	t.Helper()
	p.cmd.Process.Signal(sig)
	done := make(chan struct{})
	go func() { p.wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		p.cmd.Process.Kill()
		t.Fatalf("%s did not exit within 20 s of %v; stderr:\n%s", p.cmd.Path, sig, p.stderr)
	}
	return p.cmd.ProcessState.ExitCode()
}

// serverProc is a running teammem-server.
type serverProc struct {
	*proc
	addr, dataDir string
	extra         []string // the flags beyond the defaults, kept by restart
	api           *client.Client
}

var listenRE = regexp.MustCompile(`listening on ([0-9a-f.:\[\]]+)`)

// startServer starts teammem-server on addr (127.0.0.1:0 for a free port)
// with the embedded store in dataDir, without authentication.
func startServer(t testing.TB, dataDir, addr string, extra ...string) *serverProc {
	t.Helper()
	s := launchServer(t, dataDir, append([]string{"--addr", addr, "--insecure-no-auth", "--rate-limit", "0"}, extra...)...)
	s.extra = extra
	return s
}

// launchServer runs `teammem-server serve --data-dir dataDir args...`,
// waits for it to listen and gives it an API client without a token.
func launchServer(t testing.TB, dataDir string, args ...string) *serverProc {
	t.Helper()
	args = append([]string{"serve", "--data-dir", dataDir}, args...)
	s := &serverProc{proc: startProc(t, serverBin, args...), dataDir: dataDir}
	proctest.WaitFor(t, "the server to listen", func() bool {
		if m := listenRE.FindStringSubmatch(s.stderr.String()); m != nil {
			s.addr = m[1]
			return true
		}
		return s.cmd.ProcessState != nil
	})
	if s.addr == "" {
		t.Fatalf("server did not start:\n%s", s.stderr)
	}
	var err error
	if s.api, err = client.New(client.Options{BaseURL: s.url()}); err != nil {
		t.Fatal(err)
	}
	return s
}

// id returns the server's identity.
func (s *serverProc) id(t testing.TB) string {
	t.Helper()
	info, err := s.api.ServerInfo(context.Background())
	if err != nil {
		t.Fatalf("server identity: %v", err)
	}
	return info.ServerID
}

// url is the server's base URL.
func (s *serverProc) url() string { return "http://" + s.addr }

// restart stops the server, runs whileDown, and starts it again on the
// same port and data directory.
func (s *serverProc) restart(t testing.TB, whileDown func()) *serverProc {
	t.Helper()
	if code := s.stop(t, syscall.SIGTERM); code != 0 {
		t.Fatalf("server exit %d:\n%s", code, s.stderr)
	}
	whileDown()
	return startServer(t, s.dataDir, s.addr, s.extra...)
}

// entries returns the repo's live entries, nil when the server cannot say.
func (s *serverProc) entries(repo string) map[string]string {
	m, err := s.api.Get(context.Background(), repo, client.GetOptions{})
	if errors.Is(err, client.ErrNotFound) {
		return map[string]string{}
	}
	if err != nil {
		return nil
	}
	return m.Content.Entries
}

// agentProc is a running `teammem-agent run`.
type agentProc struct {
	*proc
	dir, state string
}

// runArgs are the flags of every test agent.
func runArgs(srv *serverProc, dir, state string) []string {
	return []string{"--server", srv.url(), "--repo", repo, "--dir", dir, "--state-dir", state, "--json", "--log-level", "warn"}
}

// startAgent starts `teammem-agent run` on dir with its own state folder
// and waits until its first cycle saved the journal (it is then watching;
// the journal is saved at the end of every cycle).
func startAgent(t testing.TB, srv *serverProc, dir, state string, extra ...string) *agentProc {
	t.Helper()
	args := append([]string{"run", "--debounce", "300ms", "--max-delay", "2s", "--poll", "1s"}, runArgs(srv, dir, state)...)
	journal := agent.ServerJournalPath(state, srv.id(t), repo, dir)
	var before time.Time
	if fi, err := os.Stat(journal); err == nil {
		before = fi.ModTime()
	}
	a := &agentProc{proc: startProc(t, agentBin, append(args, extra...)...), dir: dir, state: state}
	proctest.WaitFor(t, "the agent's first sync", func() bool {
		fi, err := os.Stat(journal) // saved at the end of every cycle
		return err == nil && fi.ModTime().After(before)
	})
	return a
}

// report is one JSON line of the agent.
type report struct {
	Repo                                         string
	Pulled, Pushed, Deleted, Conflicts, Warnings []string
	Skipped                                      []struct{ Path, Reason string }
	Held                                         []string
	Consolidation                                *struct {
		PID   int
		Ended string
	}
	Version  int64
	Checksum string
	Error    string
}

// reports decodes the agent's JSON lines so far.
func (p *proc) reports(t testing.TB) []report {
	t.Helper()
	var out []report
	for _, line := range p.stdout.snapshot() {
		var r report
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("agent printed a line that is not JSON: %q", line)
		}
		out = append(out, r)
	}
	return out
}

// runAgent runs a one-shot agent command to completion and returns its
// exit code.
func runAgent(t testing.TB, srv *serverProc, dir, state string, cmd string, extra ...string) (int, *proc) {
	t.Helper()
	p := startProc(t, agentBin, append(append([]string{cmd}, runArgs(srv, dir, state)...), extra...)...)
	p.wait()
	return p.cmd.ProcessState.ExitCode(), p
}
