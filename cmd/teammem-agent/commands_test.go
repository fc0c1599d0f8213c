package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/client/agent"
	"github.com/teammem/teammem/memcore/secrets/secretstest"
	"github.com/teammem/teammem/server/auth"
	"github.com/teammem/teammem/testkit/proctest"
)

func TestSyncBetweenTwoFolders(t *testing.T) {
	ts := newTestServer(t, false)
	a, b := t.TempDir(), t.TempDir()
	envA, envB := agentEnv(t, ts, a), agentEnv(t, ts, b)
	putFile(t, a, "MEMORY.md", "- [db](decisions/db.md)\n")
	putFile(t, a, "decisions/db.md", "We use Postgres.\n")

	res := cli(t, t.Context(), envA, "sync")
	if res.code != 0 {
		t.Fatalf("sync a: exit %d stderr %q", res.code, res.stderr)
	}
	r := oneReport(t, res)
	if diff := cmp.Diff([]string{"MEMORY.md", "decisions/db.md"}, r.Pushed); diff != "" {
		t.Errorf("pushed (-want +got):\n%s", diff)
	}
	if r.Version != 1 || !strings.HasPrefix(r.Checksum, "sha256:") {
		t.Errorf("version %d checksum %q", r.Version, r.Checksum)
	}

	res = cli(t, t.Context(), envB, "sync")
	r = oneReport(t, res)
	if res.code != 0 || len(r.Pulled) != 2 {
		t.Fatalf("sync b: exit %d report %+v", res.code, r)
	}
	got, _ := os.ReadFile(filepath.Join(b, "decisions", "db.md"))
	if string(got) != "We use Postgres.\n" {
		t.Errorf("b/decisions/db.md = %q", got)
	}

	os.Remove(filepath.Join(b, "MEMORY.md"))
	if res = cli(t, t.Context(), envB, "push"); res.code != 0 {
		t.Fatalf("push delete: exit %d stderr %q", res.code, res.stderr)
	}
	res = cli(t, t.Context(), envA, "pull")
	if r = oneReport(t, res); res.code != 0 || !cmp.Equal(r.Deleted, []string{"MEMORY.md"}) {
		t.Errorf("pull a: exit %d deleted %q", res.code, r.Deleted)
	}
	if _, err := os.Stat(filepath.Join(a, "MEMORY.md")); !os.IsNotExist(err) {
		t.Errorf("MEMORY.md still in a: %v", err)
	}
}

func TestPullDoesNotPush(t *testing.T) {
	ts := newTestServer(t, false)
	dir := t.TempDir()
	putFile(t, dir, "local.md", "mine\n")
	ts.put(t, "acme/api", api.PutRequest{Entries: map[string]string{"remote.md": "theirs\n"}})
	res := cli(t, t.Context(), agentEnv(t, ts, dir), "pull")
	if res.code != 0 {
		t.Fatalf("exit %d stderr %q", res.code, res.stderr)
	}
	if _, ok := ts.entries(t, "acme/api")["local.md"]; ok {
		t.Error("pull pushed local.md")
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "remote.md")); string(got) != "theirs\n" {
		t.Errorf("remote.md = %q", got)
	}
}

func TestSyncSkipsCredentialAndExits1(t *testing.T) {
	ts := newTestServer(t, false)
	dir := t.TempDir()
	tok := secretstest.GitHubToken()
	putFile(t, dir, "ok.md", "fine\n")
	putFile(t, dir, "creds.md", "token: "+tok+"\n")
	res := cli(t, t.Context(), agentEnv(t, ts, dir), "sync")
	if res.code != 1 || !strings.Contains(res.stderr, "1 file was skipped") {
		t.Fatalf("exit %d stderr %q", res.code, res.stderr)
	}
	r := oneReport(t, res)
	if len(r.Skipped) != 1 || r.Skipped[0].Path != "creds.md" || !strings.Contains(r.Skipped[0].Reason, "credential") {
		t.Errorf("skipped %+v", r.Skipped)
	}
	if strings.Contains(res.stdout+res.stderr, tok) {
		t.Error("the credential was printed")
	}
	entries := ts.entries(t, "acme/api")
	if _, ok := entries["creds.md"]; ok || entries["ok.md"] != "fine\n" {
		t.Errorf("server holds %v", entries)
	}
}

func TestSyncTextOutput(t *testing.T) {
	ts := newTestServer(t, false)
	dir := t.TempDir()
	putFile(t, dir, "a.md", "a\n")
	env := agentEnv(t, ts, dir)
	delete(env, "TEAMMEM_JSON")
	res := cli(t, t.Context(), env, "sync")
	if res.code != 0 || !strings.Contains(res.stdout, `pushed 1: "a.md"`) || !strings.Contains(res.stdout, "acme/api at version 1") {
		t.Errorf("exit %d stdout %q stderr %q", res.code, res.stdout, res.stderr)
	}
}

func TestSeed(t *testing.T) {
	ts := newTestServer(t, false)
	env := map[string]string{"TEAMMEM_SERVER": ts.url, "TEAMMEM_JSON": "1"}
	ts.put(t, "acme/api", api.PutRequest{Entries: map[string]string{"old1.md": "1", "old2.md": "2", "old3.md": "3", "keep.md": "server"}})
	dir := t.TempDir()
	putFile(t, dir, "keep.md", "folder\n")
	putFile(t, dir, "new.md", "new\n")

	res := cli(t, t.Context(), env, "seed", "--dir", dir, "--repo", "acme/api")
	r := oneReport(t, res)
	if res.code != 0 || !cmp.Equal(r.Pushed, []string{"keep.md", "new.md"}) || len(r.Deleted) != 0 {
		t.Fatalf("seed: exit %d report %+v stderr %q", res.code, r, res.stderr)
	}
	if got := ts.entries(t, "acme/api"); len(got) != 5 || got["keep.md"] != "folder\n" {
		t.Fatalf("after seed the server holds %v", got)
	}

	res = cli(t, t.Context(), env, "seed", "--dir", dir, "--repo", "acme/api", "--prune")
	r = oneReport(t, res)
	if res.code != 1 || len(r.Deleted) != 0 || len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "--allow-mass-delete") {
		t.Fatalf("prune within the rail: exit %d report %+v", res.code, r)
	}
	if got := ts.entries(t, "acme/api"); len(got) != 5 {
		t.Fatalf("the rail let deletions through: %v", got)
	}

	res = cli(t, t.Context(), env, "seed", "--dir", dir, "--repo", "acme/api", "--prune", "--allow-mass-delete")
	r = oneReport(t, res)
	if res.code != 0 || !cmp.Equal(r.Deleted, []string{"old1.md", "old2.md", "old3.md"}) || len(r.Pushed) != 0 {
		t.Fatalf("prune: exit %d report %+v", res.code, r)
	}
	if got := ts.entries(t, "acme/api"); !cmp.Equal(got, map[string]string{"keep.md": "folder\n", "new.md": "new\n"}) {
		t.Errorf("after prune the server holds %v", got)
	}
}

func TestSeedEmptyFolderDeletesNothing(t *testing.T) {
	ts := newTestServer(t, false)
	ts.put(t, "acme/api", api.PutRequest{Entries: map[string]string{"a.md": "a", "b.md": "b", "c.md": "c"}})
	res := cli(t, t.Context(), map[string]string{"TEAMMEM_SERVER": ts.url}, "seed", "--dir", t.TempDir(),
		"--repo", "acme/api", "--prune", "--allow-mass-delete")
	if res.code != 1 || len(ts.entries(t, "acme/api")) != 3 {
		t.Errorf("exit %d stdout %q; server holds %v", res.code, res.stdout, ts.entries(t, "acme/api"))
	}
}

func TestStatus(t *testing.T) {
	ts := newTestServer(t, false)
	dir := t.TempDir()
	env := agentEnv(t, ts, dir)
	putFile(t, dir, "a.md", "a\n")
	putFile(t, dir, "b.md", "b\n")
	if res := cli(t, t.Context(), env, "sync"); res.code != 0 {
		t.Fatalf("sync: %q", res.stderr)
	}
	putFile(t, dir, "a.md", "changed\n")
	os.Remove(filepath.Join(dir, "b.md"))
	putFile(t, dir, "c.md", "new\n")
	putFile(t, dir, "a.conflict-20260102T030405Z-host.md", "mine\n")
	st := status(t, env)
	want := []agent.Pending{{Path: "a.md", Change: "modified"}, {Path: "b.md", Change: "deleted"}, {Path: "c.md", Change: "added"}}
	if diff := cmp.Diff(want, st.Pending); diff != "" {
		t.Errorf("pending (-want +got):\n%s", diff)
	}
	if !cmp.Equal(st.Conflicts, []string{"a.conflict-20260102T030405Z-host.md"}) {
		t.Errorf("conflicts %q", st.Conflicts)
	}
	if st.Repo != "acme/api" || st.LastSync == nil || time.Since(*st.LastSync) > time.Minute || st.Version != 1 ||
		st.ServerVersion == nil || *st.ServerVersion != 1 || st.AgentRunning {
		t.Errorf("status %+v", st)
	}
	delete(env, "TEAMMEM_JSON")
	res := cli(t, t.Context(), env, "status")
	for _, want := range []string{"repo:      acme/api", "pending:   3", `modified "a.md"`, "conflicts: 1"} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("text status lacks %q:\n%s", want, res.stdout)
		}
	}
}

func TestAuthErrorsExplained(t *testing.T) {
	ts := newTestServer(t, true)
	past := &auth.Issuer{Key: ts.Key, Now: func() time.Time { return time.Now().Add(-2 * time.Hour) }}
	expired, err := past.Issue("old", []string{"**:write"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, token, want string
	}{
		{"invalid token", "not-a-token", "refused the token"},
		{"expired token", expired, "the token expired on "},
		{"missing grant", ts.token(t, "bob", time.Hour, "other/*:write"), "no grant for acme/api"},
		{"read only", ts.token(t, "carol", time.Hour, "acme/api:read"), "no grant for acme/api"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			putFile(t, dir, "a.md", "a\n")
			env := agentEnv(t, ts, dir)
			env["TEAMMEM_TOKEN"] = tt.token
			res := cli(t, t.Context(), env, "sync")
			if res.code != 1 || !strings.Contains(res.stderr, tt.want) {
				t.Errorf("exit %d stderr %q, want exit 1 mentioning %q", res.code, res.stderr, tt.want)
			}
			if strings.Contains(res.stderr, tt.token) {
				t.Error("the token was printed")
			}
		})
	}
	t.Run("expired token at login and in status", func(t *testing.T) {
		env := agentEnv(t, ts, t.TempDir())
		delete(env, "TEAMMEM_JSON")
		res := cli(t, t.Context(), env, "login", "--server", ts.url, "--token", expired)
		if res.code != 1 || !strings.Contains(res.stderr, "the token expired on ") {
			t.Errorf("login: exit %d stderr %q", res.code, res.stderr)
		}
		env["TEAMMEM_TOKEN"] = expired
		res = cli(t, t.Context(), env, "status")
		if res.code != 0 || !regexp.MustCompile(`(?m)^token: +expired on .*: set TEAMMEM_TOKEN to a new token$`).MatchString(res.stdout) {
			t.Errorf("status: exit %d stdout:\n%s\nstderr %q", res.code, res.stdout, res.stderr)
		}
	})
	t.Run("token file", func(t *testing.T) {
		dir := t.TempDir()
		putFile(t, dir, "a.md", "a\n")
		f := filepath.Join(t.TempDir(), "token")
		os.WriteFile(f, []byte(ts.token(t, "dora", time.Hour, "acme/*:write")+"\n"), 0o600)
		env := agentEnv(t, ts, dir)
		env["TEAMMEM_TOKEN_FILE"] = f
		if res := cli(t, t.Context(), env, "sync"); res.code != 0 {
			t.Errorf("exit %d stderr %q", res.code, res.stderr)
		}
	})
}

func TestRunPushesOnStop(t *testing.T) {
	ts := newTestServer(t, false)
	dir := t.TempDir()
	env := agentEnv(t, ts, dir)
	putFile(t, dir, "first.md", "1\n")
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan cliResult)
	go func() { done <- cli(t, ctx, env, "run", "--debounce", "50ms", "--max-delay", "200ms", "--poll", "1h") }()
	proctest.WaitFor(t, "", func() bool { return ts.entries(t, "acme/api")["first.md"] == "1\n" })
	putFile(t, dir, "last.md", "written just before the signal\n")
	cancel()
	res := <-done
	if res.code != 0 {
		t.Fatalf("run: exit %d stderr %q", res.code, res.stderr)
	}
	if got := ts.entries(t, "acme/api")["last.md"]; got != "written just before the signal\n" {
		t.Errorf("last.md on the server = %q; stdout %s", got, res.stdout)
	}
	for _, r := range jsonLines(t, res.stdout) {
		if r.Command != "run" || r.Event != "sync" {
			t.Errorf("run line %+v", r)
		}
	}
}

// TestRunDoesNotOverwriteConcurrentEdit: an agent that created the repo
// must still push conditionally afterwards, so that an edit made on the
// server meanwhile is merged, not overwritten.
func TestRunDoesNotOverwriteConcurrentEdit(t *testing.T) {
	ts := newTestServer(t, false)
	dir := t.TempDir()
	env := agentEnv(t, ts, dir)
	base := "one\ntwo\nthree\nfour\nfive\nsix\n"
	putFile(t, dir, "x.md", base)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan cliResult)
	go func() { done <- cli(t, ctx, env, "run", "--debounce", "50ms", "--max-delay", "200ms", "--poll", "1h") }()
	defer func() { cancel(); <-done }()
	proctest.WaitFor(t, "", func() bool { return ts.entries(t, "acme/api")["x.md"] == base })
	ts.put(t, "acme/api", api.PutRequest{Entries: map[string]string{"x.md": "one\ntwo\nthree\nfour\nfive\nSIX (server)\n"}})
	putFile(t, dir, "x.md", "ONE (local)\ntwo\nthree\nfour\nfive\nsix\n")
	want := "ONE (local)\ntwo\nthree\nfour\nfive\nSIX (server)\n"
	proctest.WaitFor(t, "", func() bool { return ts.entries(t, "acme/api")["x.md"] == want })
}

// TestSeedWithoutHome: seed keeps no journal, so it runs without a home or
// state directory; it creates the repo (If-None-Match: *), pushes only the
// keys that pass ValidateKey and reports the others as skipped.
func TestSeedWithoutHome(t *testing.T) {
	ts := newTestServer(t, false)
	dir := t.TempDir()
	putFile(t, dir, "ok.md", "fine\n")
	putFile(t, dir, "bad%41.md", "a percent-encoded name\n")
	env := map[string]string{"TEAMMEM_SERVER": ts.url, "TEAMMEM_JSON": "1"}
	var out, errOut bytes.Buffer
	e := &cliEnv{Stdout: &out, Stderr: &errOut, Stdin: strings.NewReader(""), Cwd: t.TempDir(), Home: "",
		Getenv: func(k string) string { return env[k] }}
	code := exitCode(e, run(t.Context(), e, []string{"seed", "--dir", dir, "--repo", "acme/api"}))
	r := oneReport(t, cliResult{stdout: out.String(), stderr: errOut.String(), code: code})
	if !cmp.Equal(r.Pushed, []string{"ok.md"}) || len(r.Skipped) != 1 || r.Skipped[0].Path != "bad%41.md" {
		t.Fatalf("seed without a home: exit %d report %+v stderr %q", code, r, errOut.String())
	}
	if got := ts.entries(t, "acme/api"); !cmp.Equal(got, map[string]string{"ok.md": "fine\n"}) {
		t.Errorf("the server holds %v", got)
	}
}
