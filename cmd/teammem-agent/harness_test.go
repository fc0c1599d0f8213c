package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/client"
	"github.com/teammem/teammem/testkit/servertest"
)

// testServer is the real server handler on the embedded store behind
// httptest (testkit/servertest's); with authentication it verifies
// tokens, without it runs NoAuth. api is an SDK client with the admin token.
type testServer struct {
	*servertest.Server
	url string
	api *client.Client
}

// newTestServer starts a server; withAuth makes it verify tokens.
func newTestServer(t *testing.T, withAuth bool) *testServer {
	t.Helper()
	s := servertest.Start(t, servertest.Options{Org: "test", NoAuth: !withAuth})
	tok := s.Admin
	if !withAuth {
		tok = ""
	}
	api, err := client.New(client.Options{BaseURL: s.URL, Token: tok})
	if err != nil {
		t.Fatal(err)
	}
	return &testServer{Server: s, url: s.URL, api: api}
}

// token issues a token signed with the server's key.
func (ts *testServer) token(t *testing.T, subject string, ttl time.Duration, grants ...string) string {
	t.Helper()
	return ts.TokenFor(subject, ttl, grants...)
}

// entries returns the repo's live entries (empty for a repo never written).
func (ts *testServer) entries(t *testing.T, repo string) map[string]string {
	t.Helper()
	m, err := ts.api.Get(context.Background(), repo, client.GetOptions{})
	if errors.Is(err, client.ErrNotFound) {
		return map[string]string{}
	}
	if err != nil {
		t.Fatal(err)
	}
	return m.Content.Entries
}

// put writes entries on the server directly.
func (ts *testServer) put(t *testing.T, repo string, req api.PutRequest) {
	t.Helper()
	if _, err := ts.api.Put(context.Background(), repo, req, ""); err != nil {
		t.Fatal(err)
	}
}

// cliResult is one invocation's outcome.
type cliResult struct {
	stdout, stderr string
	code           int
}

// cli runs teammem-agent in process with the given environment.
func cli(t *testing.T, ctx context.Context, env map[string]string, args ...string) cliResult {
	t.Helper()
	var out, errOut bytes.Buffer
	e := &cliEnv{Stdout: &out, Stderr: &errOut, Stdin: strings.NewReader(""), Cwd: t.TempDir(), Home: t.TempDir(),
		Getenv: func(k string) string { return env[k] }}
	code := exitCode(e, run(ctx, e, args))
	return cliResult{stdout: out.String(), stderr: errOut.String(), code: code}
}

// jsonLines decodes every line of out as a report.
func jsonLines(t *testing.T, out string) []reportJSON {
	t.Helper()
	var rs []reportJSON
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if line == "" {
			continue
		}
		var r reportJSON
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("output line %q: %v", line, err)
		}
		rs = append(rs, r)
	}
	return rs
}

// oneReport decodes the single JSON report of a one-shot command.
func oneReport(t *testing.T, res cliResult) reportJSON {
	t.Helper()
	rs := jsonLines(t, res.stdout)
	if len(rs) != 1 {
		t.Fatalf("want one JSON object, got %d; stdout %q stderr %q", len(rs), res.stdout, res.stderr)
	}
	return rs[0]
}

// putFile writes a file below dir, creating folders.
func putFile(t *testing.T, dir, key, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(key))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// agentEnv is the environment of an agent on dir with its own state.
func agentEnv(t *testing.T, ts *testServer, dir string) map[string]string {
	return map[string]string{"TEAMMEM_SERVER": ts.url, "TEAMMEM_REPO": "acme/api", "TEAMMEM_DIR": dir,
		"TEAMMEM_STATE_DIR": t.TempDir(), "TEAMMEM_JSON": "1"}
}
