//go:build unix

package e2e

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/testkit/pgtest"
	"github.com/teammem/teammem/testkit/proctest"
)

// serverCLI runs a one-shot teammem-server command to completion and
// fails unless it exits 0.
func serverCLI(t *testing.T, args ...string) *proc {
	t.Helper()
	p := startProc(t, serverBin, args...)
	if err := p.wait(); err != nil {
		t.Fatalf("teammem-server %v: %v\nstdout:\n%s\nstderr:\n%s", args, err, p.stdout, p.stderr)
	}
	return p
}

var tokenIDRE = regexp.MustCompile(`token id ([0-9a-f]{24})`)

// createToken runs the real `token create` against dataDir's key (and the
// store named by extra, else dataDir's embedded one, where it records the
// token): the token is alone on stdout, its id on stderr.
func createToken(t *testing.T, dataDir, subject string, extra ...string) (token, id string) {
	t.Helper()
	p := serverCLI(t, append([]string{"token", "create", "--data-dir", dataDir, "--subject", subject, "--grant", "acme/**:write"}, extra...)...)
	out, errs := p.stdout.String(), p.stderr.String()
	m := tokenIDRE.FindStringSubmatch(errs)
	if len(p.stdout.snapshot()) != 1 || strings.Count(out, ".") != 2 || m == nil {
		t.Fatalf("token create: stdout %q, stderr %q; want the token alone on stdout, its id on stderr", out, errs)
	}
	return strings.TrimSpace(out), m[1]
}

// getStatus sends GET /api/.../team_memory with token and returns the status.
func getStatus(t *testing.T, srv *serverProc, token string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, srv.url()+api.PathTeamMemory+"?repo="+repo, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// waitRefused polls until srv answers token with 401 and returns how long
// that took.
func waitRefused(t *testing.T, srv *serverProc, token string) time.Duration {
	t.Helper()
	start := time.Now()
	proctest.WaitFor(t, "the revoked token to be refused by "+srv.addr, func() bool {
		code, body := getStatus(t, srv, token)
		return code == 401 && strings.Contains(body, "revoked")
	})
	return time.Since(start)
}

// TestTokenRevocation runs the real binaries on the embedded store: an
// agent syncs with its token; `token revoke --id` run beside the running
// server withdraws it; the agent's next sync is refused and the server's
// 401 line says why.
func TestTokenRevocation(t *testing.T) {
	data := t.TempDir()
	srv := launchServer(t, data, "--addr", "127.0.0.1:0", "--rate-limit", "0", "--revocation-refresh", "1s")
	token, id := createToken(t, data, "dev")
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	dir, state := t.TempDir(), t.TempDir()
	write(t, dir, "decisions.md", "we revoke tokens\n")
	syncOK(t, srv, dir, state, "--token-file", tokenFile)

	serverCLI(t, "token", "revoke", "--data-dir", data, "--id", id)
	took := waitRefused(t, srv, token)
	t.Logf("refused %v after token revoke returned (--revocation-refresh 1s)", took.Round(time.Millisecond))
	write(t, dir, "decisions.md", "we revoke tokens quickly\n")
	code, p := runAgent(t, srv, dir, state, "sync", "--token-file", tokenFile)
	if code == 0 || !strings.Contains(p.stderr.String()+p.stdout.String(), "revoked") {
		t.Errorf("sync with the revoked token: exit %d; want a failure saying revoked\nstdout:\n%s\nstderr:\n%s", code, p.stdout, p.stderr)
	}
	if !regexp.MustCompile(`request refused.*status=401.*revoked`).MatchString(srv.stderr.String()) {
		t.Errorf("no 401 log line with the revocation as reason:\n%s", srv.stderr)
	}
	if strings.Contains(srv.stderr.String(), token) {
		t.Error("the server logged the token")
	}
	out := serverCLI(t, "token", "list-revoked", "--data-dir", data).stdout.String()
	if !strings.Contains(out, id) {
		t.Errorf("list-revoked lacks %s:\n%s", id, out)
	}
}

// TestTokenRevocationAcrossReplicas runs two server processes on one
// Postgres database (sharing the signing key): a subject's revocation,
// recorded by the command line with no server involved, is honoured by
// both within the refresh bound, and a token created afterwards works on
// both.
func TestTokenRevocationAcrossReplicas(t *testing.T) {
	url := pgtest.URL(t)
	d1, d2 := t.TempDir(), t.TempDir()
	s1 := launchServer(t, d1, "--addr", "127.0.0.1:0", "--rate-limit", "0", "--database-url", url, "--migrate", "--revocation-refresh", "2s")
	s2 := launchServer(t, d2, "--addr", "127.0.0.1:0", "--rate-limit", "0", "--database-url", url,
		"--signing-key-file", filepath.Join(d1, "signing.key"), "--revocation-refresh", "2s")
	token, _ := createToken(t, d1, "laptop", "--database-url", url)
	other, _ := createToken(t, d1, "ci", "--database-url", url)
	for _, s := range []*serverProc{s1, s2} {
		for _, tok := range []string{token, other} {
			if code, body := getStatus(t, s, tok); code != 404 { // accepted; the repository does not exist
				t.Fatalf("%s before the revocation: %d %s", s.addr, code, body)
			}
		}
	}
	serverCLI(t, "token", "revoke", "--database-url", url, "--subject", "laptop", "--before", "now")
	for _, s := range []*serverProc{s1, s2} {
		took := waitRefused(t, s, token)
		t.Logf("replica %s refused the token %v after token revoke returned (--revocation-refresh 2s)", s.addr, took.Round(time.Millisecond))
		if code, _ := getStatus(t, s, other); code != 404 {
			t.Errorf("%s refuses another subject's token: %d", s.addr, code)
		}
	}
	fresh, _ := createToken(t, d1, "laptop", "--database-url", url)
	for _, s := range []*serverProc{s1, s2} {
		if code, body := getStatus(t, s, fresh); code != 404 {
			t.Errorf("%s refuses the token created after the revocation: %d %s", s.addr, code, body)
		}
	}
}
