//go:build unix

package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/client"
	"github.com/teammem/teammem/testkit/gittest"
	"github.com/teammem/teammem/testkit/proctest"
)

// heldBy reports whether run said it holds key of repo for a consolidation.
func heldBy(t *testing.T, p *proc, repo, key string) bool {
	for _, r := range p.reports(t) {
		if r.Repo == repo && r.Consolidation != nil && slices.Contains(r.Held, key) {
			return true
		}
	}
	return false
}

// consolidator stands for Claude Code consolidating memDir: a process that
// takes the lock as the client does (its own pid in the file, the file's
// time when it took it) and stays alive until stopped.
func consolidator(t *testing.T, memDir string) *proc {
	t.Helper()
	lock := filepath.Join(memDir, ".consolidate-lock")
	p := startProc(t, "sh", "-c", `printf %s "$$" > "$1" && exec sleep 600`, "sh", lock)
	proctest.WaitFor(t, "the consolidator to take the lock", func() bool {
		data, err := os.ReadFile(lock)
		return err == nil && string(data) == strconv.Itoa(p.cmd.Process.Pid)
	})
	return p
}

// activity lists the versions of repo after version `after`, oldest first.
func activity(t *testing.T, c *client.Client, repo string, after int64) []api.ActivityItem {
	t.Helper()
	a, err := c.Activity(context.Background(), repo, client.HistoryOptions{})
	if err != nil {
		t.Fatalf("activity of %s: %v", repo, err)
	}
	var out []api.ActivityItem
	for _, it := range a.Items {
		if it.Version > after {
			out = append([]api.ActivityItem{it}, out...)
		}
	}
	return out
}

// version is repo's current version.
func version(t *testing.T, c *client.Client, repo string) int64 {
	t.Helper()
	h, err := c.Hashes(context.Background(), repo)
	if err != nil {
		t.Fatalf("hashes of %s: %v", repo, err)
	}
	return h.Version
}

// TestConsolidationHoldsPushes: while a process holds the consolidation
// lock of a checkout's memory folder and rewrites topics of the team folder
// and of the personal memory step by step, the running agent pushes none
// of it, though it pulls a teammate's edit of a topic being rewritten (and
// merges it); status names the consolidation. Once the holder exits, each
// folder's final state reaches the server as one version: the teammate's
// repository never held an intermediate state.
func TestConsolidationHoldsPushes(t *testing.T) {
	w := newWorkstation(t)
	mate := issue(t, w.srv.dataDir, "mate", "acme/**:write")
	teammate, err := client.New(client.Options{BaseURL: w.srv.url(), Token: mate})
	if err != nil {
		t.Fatal(err)
	}
	mine, err := client.New(client.Options{BaseURL: w.srv.url(), Token: w.token})
	if err != nil {
		t.Fatal(err)
	}
	co, _ := gittest.NewCheckout(t, "git@github.com:acme/dream.git")
	w.ok(co, w.token+"\n", "login", "--server", w.srv.url())
	w.ok(co, "", "add", "--personal")
	mem, team := w.memDir(co), w.teamDir(co)
	index := "- [Deploys](deploys.md) — how we deploy\n"
	write(t, team, "MEMORY.md", index)
	write(t, team, "deploys.md", lines(6, nil))
	write(t, mem, "notes.md", "my notes, first take\n")
	run := w.agent(w.home, "", "run", "--debounce", "200ms", "--max-delay", "1s", "--poll", "1s", "--json")
	t.Cleanup(func() { run.stop(t, syscall.SIGTERM) })
	defer func() {
		if t.Failed() {
			t.Logf("run stdout:\n%s\nrun stderr:\n%s", strings.Join(run.stdout.snapshot(), "\n"), run.stderr)
		}
	}()
	proctest.WaitFor(t, "both folders pushed", func() bool {
		return w.srv.entries("acme/dream")["deploys.md"] == lines(6, nil) && w.srv.entries("~/acme/dream")["notes.md"] == "my notes, first take\n"
	})
	teamBefore, mineBefore := version(t, mine, "acme/dream"), version(t, mine, "~/acme/dream")

	holder := consolidator(t, mem)
	write(t, team, "deploys.md", lines(6, map[int]string{0: "line a, first draft"}))
	write(t, team, "scratch.md", "an intermediate topic\n")
	write(t, mem, "notes.md", "my notes, a draft\n")
	proctest.WaitFor(t, "run to hold both folders' changes", func() bool {
		return heldBy(t, run, "acme/dream", "deploys.md") && heldBy(t, run, "~/acme/dream", "notes.md")
	})
	h, err := teammate.Hashes(context.Background(), "acme/dream")
	if err != nil {
		t.Fatal(err)
	}
	theirs := lines(6, map[int]string{5: "line f, the teammate's"})
	if _, err := teammate.Put(context.Background(), "acme/dream", api.PutRequest{Entries: map[string]string{"deploys.md": theirs}}, h.Checksum); err != nil {
		t.Fatal(err)
	}
	final := lines(6, map[int]string{0: "line a, consolidated", 5: "line f, the teammate's"})
	proctest.WaitFor(t, "the teammate's edit merged into the topic being rewritten", func() bool {
		return read(team, "deploys.md") == lines(6, map[int]string{0: "line a, first draft", 5: "line f, the teammate's"})
	})
	write(t, team, "deploys.md", final)
	if err := os.Remove(filepath.Join(team, "scratch.md")); err != nil {
		t.Fatal(err)
	}
	write(t, team, "release.md", "release on Tuesdays\n")
	write(t, team, "MEMORY.md", index+"- [Release](release.md) — when we release\n")
	write(t, mem, "notes.md", "my notes, consolidated\n")
	proctest.WaitFor(t, "run to hold the last rewrite", func() bool { return heldBy(t, run, "acme/dream", "release.md") })
	if got := w.srv.entries("acme/dream"); got["deploys.md"] != theirs || got["scratch.md"] != "" || got["release.md"] != "" {
		t.Fatalf("the team repository during the consolidation: %q", got)
	}
	if got := w.srv.entries("~/acme/dream")["notes.md"]; got != "my notes, first take\n" {
		t.Fatalf("personal notes on the server during the consolidation: %q", got)
	}
	pid := holder.cmd.Process.Pid
	if out := w.ok(co, "", "status"); !strings.Contains(out, fmt.Sprintf("consolidation: in progress, pid %d since ", pid)) ||
		!strings.Contains(out, "held until it ends") {
		t.Errorf("status during the consolidation does not name it:\n%s", out)
	}

	holder.stop(t, syscall.SIGTERM)
	proctest.WaitFor(t, "the consolidation's final state on the server", func() bool {
		got := w.srv.entries("acme/dream")
		return got["deploys.md"] == final && got["release.md"] == "release on Tuesdays\n" &&
			w.srv.entries("~/acme/dream")["notes.md"] == "my notes, consolidated\n"
	})
	versions := activity(t, mine, "acme/dream", teamBefore)
	if len(versions) != 2 || versions[0].Author != "mate" {
		t.Fatalf("team versions since the consolidation began: %+v; want the teammate's and one more", versions)
	}
	if got := versions[1].Changed; !slices.Equal(got, []string{"MEMORY.md", "deploys.md", "release.md"}) {
		t.Errorf("the consolidation's version changed %q; want MEMORY.md, deploys.md and release.md at once", got)
	}
	if p := activity(t, mine, "~/acme/dream", mineBefore); len(p) != 1 {
		t.Errorf("personal versions since the consolidation began: %+v; want one", p)
	}
	for _, it := range activity(t, mine, "acme/dream", 0) {
		if slices.Contains(it.Changed, "scratch.md") {
			t.Errorf("version %d carried the intermediate scratch.md", it.Version)
		}
	}
	proctest.WaitFor(t, "run to say the consolidation ended", func() bool {
		for _, r := range run.reports(t) {
			if r.Repo == "acme/dream" && r.Consolidation != nil && r.Consolidation.PID == pid && r.Consolidation.Ended == "its process exited" {
				return true
			}
		}
		return false
	})

	// The same lock, its holder gone, holds nothing: a later edit flows.
	write(t, team, "after.md", "a person's later note\n")
	proctest.WaitFor(t, "a later edit pushed as usual", func() bool { return w.srv.entries("acme/dream")["after.md"] != "" })
}

// TestConsolidationStaleLockIgnored: a lock whose holder is dead, or that
// is over an hour old though its holder lives, holds nothing, as the
// client itself ignores it.
func TestConsolidationStaleLockIgnored(t *testing.T) {
	w := newWorkstation(t)
	co, _ := gittest.NewCheckout(t, "git@github.com:acme/dream.git")
	w.ok(co, w.token+"\n", "login", "--server", w.srv.url())
	w.ok(co, "", "add")
	mem, team := w.memDir(co), w.teamDir(co)
	run := w.agent(w.home, "", "run", "--debounce", "200ms", "--max-delay", "1s", "--poll", "1s", "--json")
	t.Cleanup(func() { run.stop(t, syscall.SIGTERM) })
	lock := filepath.Join(mem, ".consolidate-lock")
	if err := os.MkdirAll(mem, 0o700); err != nil {
		t.Fatal(err)
	}

	dead := startProc(t, "true")
	dead.wait()
	if err := os.WriteFile(lock, []byte(strconv.Itoa(dead.cmd.Process.Pid)), 0o600); err != nil {
		t.Fatal(err)
	}
	write(t, team, "dead.md", "pushed though the lock names a dead process\n")
	proctest.WaitFor(t, "the edit under a dead holder's lock pushed", func() bool { return w.srv.entries("acme/dream")["dead.md"] != "" })

	holder := consolidator(t, mem)
	old := time.Now().Add(-2 * time.Hour)
	if err := os.Chtimes(lock, old, old); err != nil {
		t.Fatal(err)
	}
	write(t, team, "old.md", "pushed though a live process holds a two-hour-old lock\n")
	proctest.WaitFor(t, "the edit under an hour-old lock pushed", func() bool { return w.srv.entries("acme/dream")["old.md"] != "" })
	for _, r := range run.reports(t) {
		if len(r.Held) > 0 {
			t.Errorf("run held %q under a stale lock", r.Held)
		}
	}
	holder.stop(t, syscall.SIGTERM)
}
