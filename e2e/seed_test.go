package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/teammem/teammem/testkit/gittest"
	"github.com/teammem/teammem/testkit/proctest"
)

// startAgentAs starts `teammem-agent run` on dir for checkout with token;
// extra flags come last (and win).
func startAgentAs(t *testing.T, srv *authServer, token, dir, checkout string, extra ...string) *agentProc {
	t.Helper()
	state := t.TempDir()
	args := append([]string{"run", "--debounce", "300ms", "--max-delay", "2s", "--poll", "1s"}, runArgs(srv.serverProc, dir, state)...)
	args = append(append(args, "--repo-dir", checkout), extra...)
	p := startProcWith(t, func(c *exec.Cmd) { c.Env = append(c.Env, "TEAMMEM_TOKEN="+token) }, agentBin, args...)
	t.Cleanup(func() { p.stop(t, syscall.SIGTERM) })
	return &agentProc{proc: p, dir: dir, state: state}
}

// seedAs runs `teammem-agent seed` with token and returns its exit code and
// output.
func seedAs(t *testing.T, srv *authServer, token, dir string, extra ...string) (int, string) {
	t.Helper()
	args := append([]string{"seed", "--server", srv.url(), "--repo", repo, "--dir", dir}, extra...)
	p := startProcWith(t, func(c *exec.Cmd) { c.Env = append(c.Env, "TEAMMEM_TOKEN="+token) }, agentBin, args...)
	p.wait()
	return p.cmd.ProcessState.ExitCode(), p.stdout.String() + p.stderr.String()
}

// TestSeedKeepsTheTeamIndex is a CI seed of a folder whose MEMORY.md holds
// one line, into a repository where two teammates' agents keep four lines:
// the seed adds its line and keeps theirs (on the server, in every
// teammate's MEMORY.md and block), and says so. --prune then removes only
// what the folder owns: the topic an earlier seed wrote that the folder no
// longer holds and its index line, never a teammate's topic or line.
func TestSeedKeepsTheTeamIndex(t *testing.T) {
	srv := startAuthServer(t)
	ana, ben := srv.token(t, "ana", repo+":write"), srv.token(t, "ben", repo+":write")
	ci := srv.token(t, "ci-acme-e2e", repo+":write")
	anaCo, _ := gittest.NewCheckout(t, "git@github.com:"+repo+".git")
	benCo, _ := gittest.NewCheckout(t, "git@github.com:"+repo+".git")
	a := startAgentAs(t, srv, ana, t.TempDir(), anaCo)
	b := startAgentAs(t, srv, ben, t.TempDir(), benCo)

	team := []string{"- [Deploys](deploys.md) — deploy runbook", "- [DB](db.md) — pool sizes",
		"- [Flaky](flaky.md) — known flaky tests", "- [On-call](oncall.md) — rota"}
	for _, k := range []string{"deploys.md", "db.md", "flaky.md", "oncall.md"} {
		write(t, a.dir, k, "# "+k+"\n")
	}
	write(t, a.dir, "MEMORY.md", strings.Join(team[:2], "\n")+"\n")
	proctest.WaitFor(t, "ana's lines at ben", func() bool { return strings.Contains(read(b.dir, "MEMORY.md"), "pool sizes") })
	write(t, b.dir, "MEMORY.md", strings.Join(team, "\n")+"\n")
	proctest.WaitFor(t, "ben's lines on the server", func() bool { return strings.Contains(srv.entries(repo)["MEMORY.md"], "rota") })

	folder := t.TempDir()
	write(t, folder, "style.md", "# style\n")
	write(t, folder, "old.md", "# old\n")
	write(t, folder, "MEMORY.md", "- [Style](style.md) — code style\n- [Old](old.md) — retired soon\n")
	code, out := seedAs(t, srv, ci, folder)
	if code != 0 || !strings.Contains(out, "MEMORY.md: merged by line with the server's: 2 lines added, 0 removed") {
		t.Fatalf("seed: exit %d\n%s", code, out)
	}
	want := append(slices.Clone(team), "- [Style](style.md) — code style", "- [Old](old.md) — retired soon")
	for _, dir := range []string{a.dir, b.dir} {
		proctest.WaitFor(t, "the seeded line at "+dir, func() bool { return strings.Contains(read(dir, "MEMORY.md"), "code style") })
		if got := read(dir, "MEMORY.md"); got != strings.Join(want, "\n")+"\n" {
			t.Errorf("MEMORY.md at %s after the seed:\n%s", dir, got)
		}
	}
	for _, co := range []string{anaCo, benCo} {
		proctest.WaitFor(t, "the seeded line in the block of "+co, func() bool { return strings.Contains(blockOf(co), "code style") })
		for _, l := range []string{"deploy runbook", "pool sizes", "known flaky tests", "rota"} {
			if !strings.Contains(blockOf(co), l) {
				t.Errorf("the block of %s lost the teammates' line %q:\n%s", co, l, blockOf(co))
			}
		}
	}

	// The folder drops old.md and its line; ben's flaky.md is not in the
	// folder either, but ben wrote it: --prune keeps it and its line.
	write(t, folder, "MEMORY.md", "- [Style](style.md) — code style\n")
	if err := os.Remove(filepath.Join(folder, "old.md")); err != nil {
		t.Fatal(err)
	}
	code, out = seedAs(t, srv, ci, folder, "--prune")
	if code != 0 || !strings.Contains(out, `"old.md"`) || !strings.Contains(out, "--prune kept 4 keys") {
		t.Fatalf("seed --prune: exit %d\n%s", code, out)
	}
	got := srv.entries(repo)
	if _, ok := got["old.md"]; ok || got["flaky.md"] == "" || got["deploys.md"] == "" {
		t.Errorf("after --prune the server holds %v", keysOf(got))
	}
	if idx := got["MEMORY.md"]; strings.Contains(idx, "old.md") || idx != strings.Join(append(slices.Clone(team), "- [Style](style.md) — code style"), "\n")+"\n" {
		t.Errorf("MEMORY.md after --prune:\n%s", idx)
	}
}

func keysOf(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
