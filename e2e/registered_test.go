//go:build unix

package e2e

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/testkit/gittest"
)

// TestReadOutsideACheckout: log, show and search run outside any git
// checkout read the registered checkouts' repository when they are all of
// one (saying so on stderr), and with checkouts of several repositories
// refuse, naming each; restore, which writes, never guesses.
func TestReadOutsideACheckout(t *testing.T) {
	w := newWorkstation(t)
	one, oneLinked := gittest.NewCheckout(t, "git@github.com:acme/one.git")
	two, _ := gittest.NewCheckout(t, "https://github.com/acme/two.git")
	outside := t.TempDir()
	w.ok(one, w.token+"\n", "login", "--server", w.srv.url())
	w.ok(one, "", "add")
	w.ok(outside, "", "add", oneLinked) // a second checkout of the same repository
	write(t, w.teamDir(one), "deploys.md", "Run make deploy from main only.\n")
	w.ok(one, "", "sync")

	said := "is not in a git checkout; reading acme/one, the repository of the registered checkout " + one
	p := w.agent(outside, "", "log", "--json")
	if err := p.wait(); err != nil || !strings.Contains(p.stderr.String(), said) {
		t.Fatalf("log outside a checkout: %v\nstdout %s\nstderr %s", err, p.stdout, p.stderr)
	}
	var act api.Activity
	if err := json.Unmarshal([]byte(p.stdout.String()), &act); err != nil || act.Repo != "acme/one" || len(act.Items) != 1 {
		t.Errorf("log outside a checkout printed %s (%v)", p.stdout, err)
	}
	if out := w.ok(outside, "", "show", "deploys.md"); strings.TrimSpace(out) != "Run make deploy from main only." {
		t.Errorf("show outside a checkout printed %q", out)
	}
	if out := w.ok(outside, "", "search", "deploy"); !strings.Contains(out, `acme/one  "deploys.md"`) {
		t.Errorf("search outside a checkout printed:\n%s", out)
	}
	if p := w.agent(outside, "", "restore", "deploys.md", "--version", "1"); p.wait() == nil ||
		strings.Contains(p.stderr.String(), "reading acme/one") {
		t.Errorf("restore outside a checkout used a registered checkout: stdout %s stderr %s", p.stdout, p.stderr)
	}
	if out := w.ok(one, "", "log"); !strings.Contains(out, `changed  "deploys.md"`) {
		t.Errorf("log in the checkout:\n%s", out)
	}

	w.ok(two, "", "add")
	for _, args := range [][]string{{"log"}, {"search", "deploy"}} {
		p := w.agent(outside, "", args...)
		err := p.wait()
		stderr := p.stderr.String()
		if err == nil || p.cmd.ProcessState.ExitCode() != 2 || !strings.Contains(stderr, "registered checkouts are of 2 repositories") ||
			!strings.Contains(stderr, one+" (acme/one)") || !strings.Contains(stderr, oneLinked+" (acme/one)") ||
			!strings.Contains(stderr, two+" (acme/two)") || !strings.Contains(stderr, "--repo-dir DIR") {
			t.Errorf("%v outside a checkout with two repositories registered: exit %d\nstdout %s\nstderr %s",
				args, p.cmd.ProcessState.ExitCode(), p.stdout, stderr)
		}
	}
	if out := w.ok(outside, "", "log", "--repo-dir", oneLinked); !strings.Contains(out, `changed  "deploys.md"`) {
		t.Errorf("log --repo-dir of a registered checkout:\n%s", out)
	}
}
