//go:build unix

package e2e

import (
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/teammem/teammem/testkit/proctest"
)

// serverLeeway is how long after its exp the server still takes a token
// (auth.VerifierOptions.Leeway's default: clock skew).
const serverLeeway = 30 * time.Second

// issueFor creates a token of the workstation's server that expires after
// ttl, with the real `teammem-server token create`.
func (w *workstation) issueFor(ttl time.Duration) string {
	w.t.Helper()
	tok := startProc(w.t, serverBin, "token", "create", "--data-dir", w.srv.dataDir, "--subject", "dev", "--grant", "acme/**:write",
		"--ttl", ttl.String())
	if err := tok.wait(); err != nil {
		w.t.Fatalf("token create: %v\n%s", err, tok.stderr)
	}
	return strings.TrimSpace(tok.stdout.String())
}

// TestExpiredTokenKeepsTheBlock: a token close to its expiry is said in
// run's log (once) and in status, with the command that fixes it; once it
// has expired, the next sync (a teammate's push announced) keeps the block
// as the team folder on disk has it instead of deleting it, status says
// the token expired and how to fix it, and the log says so once. That
// command, run while the agent runs, brings the teammate's change in.
func TestExpiredTokenKeepsTheBlock(t *testing.T) {
	w := newWorkstation(t)
	co := w.loggedIn("acme/one")[0] // registered with the long token
	w.share("acme/one", map[string]string{"MEMORY.md": "- [Deploys](deploys.md) — runbook of finch-2207\n", "deploys.md": "make deploy\n"})
	ttl := 10 * time.Second
	short, issued := w.issueFor(ttl), time.Now()
	w.ok(co, short+"\n", "login", "--server", w.srv.url())
	run := w.startIdleRun()
	proctest.WaitFor(t, "the block", func() bool { return hasBlock(co, "CLAUDE.local.md", "finch-2207") })
	relogin := "run teammem-agent login --server " + w.srv.url()
	proctest.WaitFor(t, "the warning in the log", func() bool { return strings.Contains(run.stderr.String(), "the token expires on ") })
	if st := w.ok(co, "", "status", "--repo-dir", co); !regexp.MustCompile(`token: +expires on .*: before then, ` + regexp.QuoteMeta(relogin)).MatchString(st) {
		t.Errorf("status before the expiry:\n%s", st)
	}
	before := read(co, "CLAUDE.local.md")

	time.Sleep(time.Until(issued.Add(ttl + serverLeeway + time.Second))) // the server honours a token that long after its exp
	w.share("acme/one", map[string]string{"MEMORY.md": "- [Deploys](deploys.md) — runbook of finch-2207\n- [Oncall](oncall.md) — pager of tern-6650\n",
		"oncall.md": "ana\n"})
	proctest.WaitFor(t, "the refusal in the log", func() bool { return strings.Contains(run.stderr.String(), "the token expired on ") })
	time.Sleep(3 * time.Second) // the agent retries meanwhile
	if got := read(co, "CLAUDE.local.md"); got != before {
		t.Fatalf("after the token expired CLAUDE.local.md became:\n%s\nlog:\n%s", got, run.stderr)
	}
	st := w.ok(co, "", "status", "--repo-dir", co)
	if !regexp.MustCompile(`token: +expired on \d{4}-\d\d-\d\d \d\d:\d\d UTC: `+regexp.QuoteMeta(relogin)).MatchString(st) ||
		!strings.Contains(st, "CLAUDE.local.md (claude): in place") {
		t.Errorf("status after the expiry:\n%s", st)
	}
	t.Logf("status after the expiry:\n%s", st)
	for _, said := range []string{"the token expires on ", "the token expired on "} {
		if n := strings.Count(run.stderr.String(), said); n != 1 {
			t.Errorf("the log says %q %d times; want once:\n%s", said, n, run.stderr)
		}
	}

	w.ok(co, w.token+"\n", "login", "--server", w.srv.url())
	proctest.WaitFor(t, "the teammate's line after login", func() bool { return hasBlock(co, "CLAUDE.local.md", "tern-6650") })
	if code := run.stop(t, syscall.SIGTERM); code != 0 {
		t.Errorf("run exit %d:\n%s", code, run.stderr)
	}
}
