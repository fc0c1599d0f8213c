package main

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/teammem/teammem/client/agent"
)

// TestStatusWithoutServerFindsTheJournal: status without --server reads
// the journal the last sync wrote for this repo and folder, and names its
// server.
func TestStatusWithoutServerFindsTheJournal(t *testing.T) {
	ts := newTestServer(t, false)
	dir := t.TempDir()
	env := agentEnv(t, ts, dir)
	putFile(t, dir, "a.md", "a\n")
	if res := cli(t, t.Context(), env, "sync"); res.code != 0 {
		t.Fatalf("sync: %q", res.stderr)
	}
	delete(env, "TEAMMEM_SERVER")
	st := status(t, env)
	if st.LastSync == nil || st.Version != 1 || st.Server != ts.url || len(st.Pending) != 0 {
		t.Errorf("status without --server: last sync %v, version %d, server %q, pending %v",
			st.LastSync, st.Version, st.Server, st.Pending)
	}
}

// status runs `status` with env (JSON) and decodes its output.
func status(t *testing.T, env map[string]string) *agent.Status {
	t.Helper()
	res := cli(t, t.Context(), env, "status")
	if res.code != 0 {
		t.Fatalf("status: exit %d stderr %q", res.code, res.stderr)
	}
	st := new(agent.Status)
	if err := json.Unmarshal([]byte(res.stdout), st); err != nil {
		t.Fatal(err)
	}
	return st
}

// TestTeamDirNeedsAHome: without --dir and without a home directory the
// team folder is an error naming the fix, not a folder below the working
// directory.
func TestTeamDirNeedsAHome(t *testing.T) {
	var out, errOut bytes.Buffer
	e := &cliEnv{Stdout: &out, Stderr: &errOut, Stdin: strings.NewReader(""), Cwd: t.TempDir(), Home: "",
		Getenv: func(k string) string { return map[string]string{"TEAMMEM_REPO": "acme/api"}[k] }}
	_, _, err := resolveFolder(e, commonFlags{repo: "acme/api"})
	if err == nil || !strings.Contains(err.Error(), "no home directory: pass --dir or set HOME") {
		t.Errorf("resolveFolder without a home = %v", err)
	}
	entries, _ := os.ReadDir(e.Cwd)
	if len(entries) != 0 {
		t.Errorf("working directory got %d entries", len(entries))
	}
}

// TestStatusBeforeFirstSync: a team folder the first sync has not made yet
// is said to be so, not reported as unreadable.
func TestStatusBeforeFirstSync(t *testing.T) {
	ts := newTestServer(t, false)
	dir := t.TempDir() + "/team"
	env := agentEnv(t, ts, dir)
	st := status(t, env)
	if !strings.Contains(st.FolderError, "not created yet") || strings.Contains(st.FolderError, "no such file") {
		t.Errorf("status before the first sync: folder %q; want it said not created yet", st.FolderError)
	}
}

// TestEmptyRepositorySaysSo: sync and diff on a repository nobody has
// written say what happened instead of printing nothing.
func TestEmptyRepositorySaysSo(t *testing.T) {
	ts := newTestServer(t, false)
	dir := t.TempDir()
	env := agentEnv(t, ts, dir)
	delete(env, "TEAMMEM_JSON")
	if res := cli(t, t.Context(), env, "sync"); res.code != 0 || !strings.Contains(res.stdout, "acme/api has no team memory on the server yet") {
		t.Errorf("sync on an empty repository: exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}
	if res := cli(t, t.Context(), env, "diff", "notes.md"); res.code != 0 || !strings.Contains(res.stdout, "no difference: notes.md (not on the server) and notes.md (no local file)") {
		t.Errorf("diff of a key nowhere: exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}
}
