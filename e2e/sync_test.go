//go:build unix

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/teammem/teammem/memcore/secrets/secretstest"
	"github.com/teammem/teammem/testkit/proctest"
)

// pair is a server and two agents on two folders of the same repo.
type pair struct {
	srv  *serverProc
	a, b *agentProc
}

// startPair starts a server and two agents.
func startPair(t *testing.T) *pair {
	t.Helper()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	return &pair{srv: srv,
		a: startAgent(t, srv, t.TempDir(), t.TempDir()),
		b: startAgent(t, srv, t.TempDir(), t.TempDir())}
}

// stopAll stops both agents with SIGTERM, expecting exit 0.
func (p *pair) stopAll(t *testing.T) {
	t.Helper()
	for _, a := range []*agentProc{p.a, p.b} {
		if code := a.stop(t, syscall.SIGTERM); code != 0 {
			t.Errorf("agent exit %d; stderr:\n%s", code, a.stderr)
		}
	}
}

func TestTwoAgents(t *testing.T) {
	p := startPair(t)
	defer p.stopAll(t)

	t.Run("write propagates", func(t *testing.T) {
		write(t, p.a.dir, "notes/hello.md", "hello from a\n")
		proctest.WaitFor(t, "hello.md in b", func() bool { return read(p.b.dir, "notes/hello.md") == "hello from a\n" })
	})

	t.Run("delete propagates", func(t *testing.T) {
		write(t, p.a.dir, "gone.md", "short-lived\n")
		proctest.WaitFor(t, "gone.md in b", func() bool { return read(p.b.dir, "gone.md") == "short-lived\n" })
		os.Remove(filepath.Join(p.b.dir, "gone.md"))
		proctest.WaitFor(t, "gone.md deleted in a", func() bool { return read(p.a.dir, "gone.md") == absent })
		proctest.WaitFor(t, "gone.md deleted on the server", func() bool {
			e := p.srv.entries(repo)
			_, ok := e["gone.md"]
			return e != nil && !ok
		})
	})

	t.Run("non-overlapping edits merge", func(t *testing.T) {
		base := lines(10, nil)
		write(t, p.a.dir, "merge.md", base)
		proctest.WaitFor(t, "merge.md in b", func() bool { return read(p.b.dir, "merge.md") == base })
		write(t, p.a.dir, "merge.md", lines(10, map[int]string{1: "edited by a"}))
		write(t, p.b.dir, "merge.md", lines(10, map[int]string{8: "edited by b"}))
		want := lines(10, map[int]string{1: "edited by a", 8: "edited by b"})
		defer dumpOnFailure(t, p)
		proctest.WaitFor(t, "both edits everywhere", func() bool {
			return read(p.a.dir, "merge.md") == want && read(p.b.dir, "merge.md") == want && p.srv.entries(repo)["merge.md"] == want
		})
		for _, dir := range []string{p.a.dir, p.b.dir} {
			if c := conflictCopies(t, dir); len(c) != 0 {
				t.Errorf("conflict copies after a clean merge: %v", c)
			}
		}
	})

	t.Run("overlapping edits keep both", func(t *testing.T) {
		base := lines(6, nil)
		write(t, p.a.dir, "clash.md", base)
		proctest.WaitFor(t, "clash.md in b", func() bool { return read(p.b.dir, "clash.md") == base })
		fromA, fromB := lines(6, map[int]string{3: "a says yes"}), lines(6, map[int]string{3: "b says no"})
		write(t, p.a.dir, "clash.md", fromA)
		write(t, p.b.dir, "clash.md", fromB)
		var copies map[string]string
		proctest.WaitFor(t, "one version in place everywhere and the other as a conflict copy", func() bool {
			onServer := p.srv.entries(repo)["clash.md"]
			copies = conflictCopies(t, p.a.dir)
			for k, v := range conflictCopies(t, p.b.dir) {
				copies[k] = v
			}
			return (onServer == fromA || onServer == fromB) && read(p.a.dir, "clash.md") == onServer &&
				read(p.b.dir, "clash.md") == onServer && len(copies) == 1
		})
		got := []string{p.srv.entries(repo)["clash.md"]}
		for _, c := range copies {
			got = append(got, c)
		}
		slices.Sort(got)
		want := []string{fromA, fromB}
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("an edit was lost: server and conflict copy hold %q", got)
		}
		for k := range p.srv.entries(repo) {
			if strings.Contains(k, ".conflict-") {
				t.Errorf("conflict copy %q was pushed", k)
			}
		}
	})

	t.Run("credential not pushed", func(t *testing.T) {
		tok := secretstest.GitHubToken()
		write(t, p.a.dir, "creds.md", "deploy with "+tok+"\n")
		write(t, p.a.dir, "after-creds.md", "marker\n")
		proctest.WaitFor(t, "the marker in b", func() bool { return read(p.b.dir, "after-creds.md") == "marker\n" })
		proctest.WaitFor(t, "the skip reported", func() bool { return skippedPath(t, p.a.proc, "creds.md") })
		if _, ok := p.srv.entries(repo)["creds.md"]; ok {
			t.Error("creds.md reached the server")
		}
		if read(p.b.dir, "creds.md") != absent {
			t.Error("creds.md reached b")
		}
		if strings.Contains(p.a.stdout.String()+p.a.stderr.String(), tok) {
			t.Error("the agent printed the credential")
		}
	})

	t.Run("editor save patterns push only the real file", func(t *testing.T) {
		editorSave(t, p.a.dir)
		want := "saved by the editor, version 2\n"
		proctest.WaitFor(t, "doc.md on the server", func() bool { return p.srv.entries(repo)["doc.md"] == want })
		proctest.WaitFor(t, "doc.md in b", func() bool { return read(p.b.dir, "doc.md") == want })
		for k := range p.srv.entries(repo) {
			if strings.Contains(k, "swp") || strings.Contains(k, "4913") || strings.Contains(k, "~") ||
				strings.Contains(k, ".#") || strings.Contains(k, ".tmp") || strings.HasPrefix(k, ".") {
				t.Errorf("scratch file %q reached the server", k)
			}
		}
	})
}

// dumpOnFailure logs both folders, the server and the agents' output when
// t failed.
func dumpOnFailure(t *testing.T, p *pair) {
	if !t.Failed() {
		return
	}
	t.Logf("a: %q\nb: %q\nserver: %q", files(t, p.a.dir), files(t, p.b.dir), p.srv.entries(repo))
	t.Logf("agent a:\n%s\n%s\nagent b:\n%s\n%s", p.a.stdout, p.a.stderr, p.b.stdout, p.b.stderr)
	t.Logf("server:\n%s", p.srv.stderr)
}

// editorSave replays what vim and Emacs do when saving doc.md: a swap
// file, vim's 4913 write test, a backup copy, a lock symlink, and a write
// to a temporary file renamed over the target.
func editorSave(t *testing.T, dir string) {
	t.Helper()
	write(t, dir, "doc.md", "saved by the editor, version 1\n")
	write(t, dir, ".doc.md.swp", "vim swap\x00\x01")
	write(t, dir, "4913", "")
	os.Remove(filepath.Join(dir, "4913"))
	write(t, dir, "doc.md~", "saved by the editor, version 1\n")
	os.Symlink("user@host.1234:1700000000", filepath.Join(dir, ".#doc.md"))
	write(t, dir, ".doc.md.tmp-save", "saved by the editor, version 2\n")
	if err := os.Rename(filepath.Join(dir, ".doc.md.tmp-save"), filepath.Join(dir, "doc.md")); err != nil {
		t.Fatal(err)
	}
	write(t, dir, "doc.md.tmp", "another editor's temp\n")
}

// skippedPath reports whether the agent reported path as skipped.
func skippedPath(t testing.TB, p *proc, path string) bool {
	for _, r := range p.reports(t) {
		for _, s := range r.Skipped {
			if s.Path == path && strings.Contains(s.Reason, "credential") {
				return true
			}
		}
	}
	return false
}

func TestEditsWhileServerDownArePushedLater(t *testing.T) {
	p := startPair(t)
	defer p.stopAll(t)
	write(t, p.a.dir, "keep.md", "v1\n")
	write(t, p.a.dir, "drop.md", "to be deleted\n")
	proctest.WaitFor(t, "the first files in b", func() bool { return read(p.b.dir, "drop.md") == "to be deleted\n" })

	p.srv = p.srv.restart(t, func() {
		write(t, p.a.dir, "keep.md", "v2, edited offline\n")
		os.Remove(filepath.Join(p.a.dir, "drop.md"))
		for i := range 3 {
			write(t, p.a.dir, "offline-"+string(rune('1'+i))+".md", "made while the server was down\n")
			time.Sleep(400 * time.Millisecond) // separate debounce bursts, held by the backoff
		}
	})

	proctest.WaitFor(t, "every offline edit on the server", func() bool {
		e := p.srv.entries(repo)
		_, dropped := e["drop.md"]
		return e != nil && e["keep.md"] == "v2, edited offline\n" && !dropped && e["offline-1.md"] != "" &&
			e["offline-2.md"] != "" && e["offline-3.md"] != ""
	})
	proctest.WaitFor(t, "every offline edit in b", func() bool {
		return read(p.b.dir, "keep.md") == "v2, edited offline\n" && read(p.b.dir, "drop.md") == absent &&
			read(p.b.dir, "offline-3.md") != absent
	})
}

func TestSIGTERMRightAfterEditPushes(t *testing.T) {
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	a := startAgent(t, srv, t.TempDir(), t.TempDir(), "--debounce", "5s", "--max-delay", "10s", "--poll", "60s")
	write(t, a.dir, "last-words.md", "written just before SIGTERM\n")
	if code := a.stop(t, syscall.SIGTERM); code != 0 {
		t.Fatalf("agent exit %d; stderr:\n%s", code, a.stderr)
	}
	if got := srv.entries(repo)["last-words.md"]; got != "written just before SIGTERM\n" {
		t.Errorf("server holds %q", got)
	}
}

func TestEmptyingTheFolderDeletesNothing(t *testing.T) {
	p := startPair(t)
	defer p.stopAll(t)
	for _, k := range []string{"one.md", "two.md", "three.md", "sub/four.md"} {
		write(t, p.a.dir, k, k+"\n")
	}
	proctest.WaitFor(t, "four files on the server and in b", func() bool {
		return len(p.srv.entries(repo)) == 4 && read(p.b.dir, "sub/four.md") == "sub/four.md\n"
	})
	entries, _ := os.ReadDir(p.a.dir)
	for _, e := range entries {
		os.RemoveAll(filepath.Join(p.a.dir, e.Name()))
	}
	proctest.WaitFor(t, "the agent to hold back the deletions", func() bool {
		for _, r := range p.a.reports(t) {
			for _, w := range r.Warnings {
				if strings.Contains(w, "not deleting") {
					return true
				}
			}
		}
		return false
	})
	if n := len(p.srv.entries(repo)); n != 4 {
		t.Errorf("the server holds %d entries, want 4", n)
	}
	if read(p.b.dir, "sub/four.md") != "sub/four.md\n" {
		t.Error("b lost sub/four.md")
	}
}

// TestSecondAgentOnFolderFails is defect 5 of issue 7: a second agent on
// one team folder, with another --state-dir and reaching the folder through
// a symlink, exits non-zero naming the running agent's pid and the folder.
func TestSecondAgentOnFolderFails(t *testing.T) {
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	dir, state := t.TempDir(), t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	first := startAgent(t, srv, dir, state)
	for _, via := range []string{dir, link} {
		code, second := runAgent(t, srv, via, t.TempDir(), "run")
		real, _ := filepath.EvalSymlinks(dir)
		stderr := second.stderr.String()
		if code == 0 || !strings.Contains(stderr, "another teammem-agent is running") ||
			!strings.Contains(stderr, fmt.Sprintf("pid %d", first.cmd.Process.Pid)) || !strings.Contains(stderr, real) {
			t.Errorf("second agent through %s with its own state dir: exit %d stderr %q", via, code, stderr)
		}
	}
	if c := first.stop(t, syscall.SIGTERM); c != 0 {
		t.Errorf("first agent exit %d", c)
	}
}
