//go:build unix

package e2e

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/teammem/teammem/api"
)

// agentOut runs a one-shot agent command that must succeed and returns its
// standard output.
func agentOut(t *testing.T, srv *serverProc, dir, state, cmd string, args ...string) string {
	t.Helper()
	code, p := runAgent(t, srv, dir, state, cmd, args...)
	if code != 0 {
		t.Fatalf("%s %v: exit %d\nstdout:\n%s\nstderr:\n%s", cmd, args, code, p.stdout, p.stderr)
	}
	return p.stdout.String()
}

// agentJSON runs a one-shot command (with --json, as every test agent) and
// decodes its one object.
func agentJSON[T any](t *testing.T, srv *serverProc, dir, state, cmd string, args ...string) T {
	t.Helper()
	var v T
	out := agentOut(t, srv, dir, state, cmd, args...)
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("%s %v printed %q: %v", cmd, args, out, err)
	}
	return v
}

// TestHistoryCommands drives log, show, diff and restore against the real
// server: a key overwritten and another deleted come back, through PUTs
// that the history then lists.
func TestHistoryCommands(t *testing.T) {
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	dir, state := t.TempDir(), t.TempDir()
	sync := func() { t.Helper(); agentOut(t, srv, dir, state, "sync") }

	write(t, dir, "a.md", "first line\nsecond line\n")
	write(t, dir, "b.md", "b was here\n")
	sync() // v1
	write(t, dir, "a.md", "first line\nSECOND LINE\n")
	sync() // v2: a.md overwritten
	if err := os.Remove(filepath.Join(dir, "b.md")); err != nil {
		t.Fatal(err)
	}
	sync() // v3: b.md deleted

	act := agentJSON[api.Activity](t, srv, dir, state, "log")
	var versions []int64
	for _, it := range act.Items {
		versions = append(versions, it.Version)
	}
	if !slices.Equal(versions, []int64{3, 2, 1}) || !slices.Equal(act.Items[0].Deleted, []string{"b.md"}) ||
		!slices.Equal(act.Items[2].Changed, []string{"a.md", "b.md"}) || act.Next != nil || act.Repo != repo {
		t.Errorf("log = %+v", act)
	}
	if page := agentJSON[api.Activity](t, srv, dir, state, "log", "--limit", "2"); len(page.Items) != 2 || page.Next == nil || *page.Next != 2 {
		t.Errorf("log --limit 2 = %+v", page)
	}
	hist := agentJSON[api.History](t, srv, dir, state, "log", "b.md")
	if len(hist.Revisions) != 2 || hist.Revisions[0].Op != api.OpDelete || hist.Revisions[1].Op != api.OpPut {
		t.Errorf("log b.md = %+v", hist)
	}

	if rev := agentJSON[api.RevisionContent](t, srv, dir, state, "show", "a.md@1"); rev.Content != "first line\nsecond line\n" || rev.Version != 1 {
		t.Errorf("show a.md@1 = %+v", rev)
	}
	if rev := agentJSON[api.RevisionContent](t, srv, dir, state, "show", "a.md@3"); rev.Content != "first line\nSECOND LINE\n" || rev.Version != 2 {
		t.Errorf("show a.md@3 (unchanged since 2) = %+v", rev)
	}
	// show of a deleted key names the version to show or restore, with
	// the commands that do it.
	deleted := "acme/e2e \"b.md\" was deleted in version 3; its last content is version 1: " +
		"`teammem-agent show b.md@1 --repo acme/e2e` prints it, `teammem-agent restore b.md --version 1 --repo acme/e2e` brings it back"
	for _, arg := range []string{"b.md", "b.md@3"} {
		if code, p := runAgent(t, srv, dir, state, "show", arg); code != 1 || !strings.Contains(p.stderr.String(), deleted) {
			t.Errorf("show %s of a deleted key: exit %d, stderr %s", arg, code, p.stderr)
		}
	}

	type diffOut struct {
		From, To, Diff string
		Identical      bool
	}
	d := agentJSON[diffOut](t, srv, dir, state, "diff", "a.md", "1", "2")
	if d.From != "a.md@1" || d.To != "a.md@2" || !strings.Contains(d.Diff, "-second line\n+SECOND LINE\n") {
		t.Errorf("diff a.md 1 2 = %+v", d)
	}
	if d := agentJSON[diffOut](t, srv, dir, state, "diff", "a.md"); !d.Identical {
		t.Errorf("diff a.md of a synced file = %+v; want identical", d)
	}
	write(t, dir, "a.md", "first line\nSECOND LINE\nthird, local only\n")
	if d := agentJSON[diffOut](t, srv, dir, state, "diff", "a.md"); d.From != "a.md@2" || d.To != "a.md (local)" ||
		!strings.HasSuffix(d.Diff, " SECOND LINE\n+third, local only\n") {
		t.Errorf("diff a.md with a local edit = %+v", d)
	}
	write(t, dir, "a.md", "first line\nSECOND LINE\n")

	type restored struct {
		FromVersion, Version int64
		Unchanged            bool
	}
	if r := agentJSON[restored](t, srv, dir, state, "restore", "b.md"); r.FromVersion != 1 || r.Version != 4 {
		t.Errorf("restore b.md = %+v; want from 1 as 4", r)
	}
	if r := agentJSON[restored](t, srv, dir, state, "restore", "a.md", "--version", "1"); r.FromVersion != 1 || r.Version != 5 {
		t.Errorf("restore a.md --version 1 = %+v; want from 1 as 5", r)
	}
	if r := agentJSON[restored](t, srv, dir, state, "restore", "a.md", "--version", "1"); !r.Unchanged {
		t.Errorf("restoring the current content again = %+v; want unchanged", r)
	}
	if code, p := runAgent(t, srv, dir, state, "restore", "a.md"); code != 1 || !strings.Contains(p.stderr.String(), "is live") {
		t.Errorf("restore of a live key without --version: exit %d, stderr %s", code, p.stderr)
	}
	sync() // the restores reach the folder like any edit
	want := map[string]string{"a.md": "first line\nsecond line\n", "b.md": "b was here\n"}
	if got := files(t, dir); !maps.Equal(got, want) {
		t.Errorf("folder after restore and sync = %q; want %q", got, want)
	}
	if got := srv.entries(repo); !maps.Equal(got, want) {
		t.Errorf("server after restore = %q; want %q", got, want)
	}
	act = agentJSON[api.Activity](t, srv, dir, state, "log", "--limit", "2")
	if act.Items[0].Version != 5 || !slices.Equal(act.Items[0].Changed, []string{"a.md"}) ||
		act.Items[0].Author != "anonymous" || !slices.Equal(act.Items[1].Changed, []string{"b.md"}) {
		t.Errorf("log after the restores = %+v", act)
	}
	// The restores read as restores, naming the version they brought back.
	if !maps.Equal(act.Items[0].RestoreOf, map[string]int64{"a.md": 1}) || !maps.Equal(act.Items[1].RestoreOf, map[string]int64{"b.md": 1}) {
		t.Errorf("log after the restores: restoreOf %v and %v; want a.md of 1, b.md of 1", act.Items[0].RestoreOf, act.Items[1].RestoreOf)
	}
	if out := agentOut(t, srv, dir, state, "log", "--json=false"); !strings.Contains(out, "version 5") || !strings.Contains(out, `deleted  "b.md"`) ||
		!strings.Contains(out, `changed  "a.md"  (restore of v1)`) || !strings.Contains(out, `changed  "b.md"  (restore of v1)`) ||
		strings.Count(out, "restore of") != 2 {
		t.Errorf("log as text:\n%s", out)
	}
	if out := agentOut(t, srv, dir, state, "log", "a.md", "--json=false"); strings.Count(out, "(restore of v1)") != 1 ||
		!regexp.MustCompile(`(?m)^version 5 .*\(restore of v1\)$`).MatchString(out) {
		t.Errorf("log a.md as text:\n%s", out)
	}
	if out := agentOut(t, srv, dir, state, "restore", "a.md", "--version", "2", "--json=false"); !strings.Contains(out,
		`restored "a.md" to its content of version 2: version 6 of acme/e2e, which `+"`teammem-agent log`"+` shows as the restore of v2`) {
		t.Errorf("restore as text: %s", out)
	}
}
