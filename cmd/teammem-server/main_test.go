package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/internal/cliflags"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/testkit/proctest"
)

var listenRE = regexp.MustCompile(`listening on (127\.0\.0\.1:\d+)`)

// startServer runs `serve` in-process on a free port and returns its URL.
func startServer(t *testing.T, dataDir string, extra ...string) (string, *proctest.Buffer) {
	t.Helper()
	url, logs, _ := startServerStop(t, dataDir, extra...)
	return url, logs
}

// startServerStop is startServer that also returns a function stopping the
// server (called at cleanup too; calling it again does nothing).
func startServerStop(t *testing.T, dataDir string, extra ...string) (string, *proctest.Buffer, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	logs := &proctest.Buffer{}
	done := make(chan error, 1)
	args := append([]string{"serve", "--addr", "127.0.0.1:0", "--data-dir", dataDir}, extra...)
	go func() {
		done <- run(ctx, args, env{stdout: io.Discard, stderr: logs, getenv: func(string) string { return "" }})
	}()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("serve returned %v", err)
			}
		})
	}
	t.Cleanup(stop)
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if m := listenRE.FindStringSubmatch(logs.String()); m != nil {
			return "http://" + m[1], logs, stop
		}
		select {
		case err := <-done:
			done <- err
			t.Fatalf("serve exited early: %v\n%s", err, logs.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatalf("no 'listening on' line:\n%s", logs.String())
	return "", nil, nil
}

func request(t *testing.T, method, url, token, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestServeFirstStart(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	url, logs := startServer(t, dir)
	for _, name := range []string{"signing.key", "admin.token"} {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s mode = %v, want 0600", name, fi.Mode().Perm())
		}
	}
	tok, _ := os.ReadFile(filepath.Join(dir, "admin.token"))
	admin := strings.TrimSpace(string(tok))
	if code, body := request(t, http.MethodPut, url+api.PathTeamMemory+"?repo=acme/api", admin, `{"entries":{"a.md":"a"}}`); code != 200 {
		t.Fatalf("PUT with admin.token = %d %s", code, body)
	}
	if code, _ := request(t, http.MethodGet, url+api.PathMetrics, "", ""); code != 200 {
		t.Errorf("/metrics = %d", code)
	}
	if code, _ := request(t, http.MethodGet, url+api.PathReadyz, "", ""); code != 200 {
		t.Errorf("/readyz = %d", code)
	}
	if strings.Contains(logs.String(), admin) {
		t.Error("the admin token was logged")
	}
	if !strings.Contains(logs.String(), filepath.Join(dir, "admin.token")) {
		t.Error("the admin token's path was not logged")
	}
}

func TestTokenCreate(t *testing.T) {
	dir := t.TempDir()
	url, _ := startServer(t, dir)
	var out bytes.Buffer
	e := env{stdout: &out, stderr: io.Discard, getenv: func(k string) string {
		if k == "TEAMMEM_DATA_DIR" {
			return dir
		}
		return ""
	}}
	if err := run(context.Background(), []string{"token", "create", "--subject", "ci", "--grant", "acme/*:write", "--ttl", "1s"}, e); err != nil {
		t.Fatal(err)
	}
	tok := strings.TrimSpace(out.String())
	if strings.Count(tok, ".") != 2 || strings.Contains(tok, "\n") {
		t.Fatalf("token create printed %q", out.String())
	}
	if code, body := request(t, http.MethodPut, url+api.PathTeamMemory+"?repo=acme/web", tok, `{"entries":{"a.md":"a"}}`); code != 200 {
		t.Fatalf("PUT with created token = %d %s", code, body)
	}
	if code, _ := request(t, http.MethodGet, url+api.PathTeamMemory+"?repo=other/web", tok, ""); code != 403 {
		t.Errorf("GET outside the grant = %d, want 403", code)
	}
}

func TestUsageErrors(t *testing.T) {
	for name, c := range map[string]struct {
		args []string
		code int
	}{
		"unknown command":            {[]string{"frobnicate"}, 2},
		"unknown flag":               {[]string{"serve", "--nope"}, 2},
		"insecure on public addr":    {[]string{"serve", "--insecure-no-auth", "--addr", "0.0.0.0:0"}, 2},
		"insecure on empty host":     {[]string{"serve", "--insecure-no-auth", "--addr", ":0"}, 2},
		"migrate both":               {[]string{"serve", "--migrate", "--no-migrate"}, 2},
		"sync each commit, postgres": {[]string{"serve", "--sync-each-commit", "--database-url", "postgres://x@127.0.0.1:1/db"}, 2},
		"token without subject":      {[]string{"token", "create", "--grant", "**:read"}, 2},
		"token without grant":        {[]string{"token", "create", "--subject", "x"}, 2},
		"token bad grant":            {[]string{"token", "create", "--subject", "x", "--grant", "acme:owner", "--data-dir", t.TempDir()}, 2},
		"token zero ttl":             {[]string{"token", "create", "--subject", "x", "--grant", "**:read", "--ttl", "0s"}, 2},
		"migrate without subcommand": {[]string{"migrate"}, 2},
		"migrate down without count": {[]string{"migrate", "down"}, 2},
		"help":                       {[]string{"--help"}, 0},
		"serve help":                 {[]string{"serve", "--help"}, 0},
		"version":                    {[]string{"version"}, 0},
		"bad secret scan":            {[]string{"serve", "--secret-scan", "maybe"}, 2},
		"bad public host":            {[]string{"serve", "--public-host", "https://teammem.example.com", "--public-host", "not a name"}, 2},
		"missing signing key file":   {[]string{"serve", "--addr", "127.0.0.1:0", "--data-dir", t.TempDir(), "--signing-key-file", "/nonexistent/key.pem"}, 1},
		"postgres unreachable":       {[]string{"serve", "--addr", "127.0.0.1:0", "--data-dir", t.TempDir(), "--database-url", "postgres://x@127.0.0.1:1/db?connect_timeout=2"}, 1},
		"env twin bad value":         {[]string{"serve", "--addr", "127.0.0.1:0"}, 2},
	} {
		t.Run(name, func(t *testing.T) {
			var stderr bytes.Buffer
			getenv := func(k string) string {
				if name == "env twin bad value" && k == "TEAMMEM_RATE_LIMIT" {
					return "fast"
				}
				return ""
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			err := run(ctx, c.args, env{stdout: io.Discard, stderr: &stderr, getenv: getenv})
			if got := exitCode(&stderr, err); got != c.code {
				t.Errorf("exit %d, want %d (err %v)", got, c.code, err)
			}
			if c.code != 0 && (stderr.Len() == 0 || strings.Count(strings.TrimSpace(stderr.String()), "\n") > 30) {
				t.Errorf("stderr = %q", stderr.String())
			}
		})
	}
}

func TestEnvTwins(t *testing.T) {
	if got := cliflags.EnvName("max-entry-bytes"); got != "TEAMMEM_MAX_ENTRY_BYTES" {
		t.Errorf("envName = %s", got)
	}
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	logs := &proctest.Buffer{}
	done := make(chan error, 1)
	getenv := func(k string) string {
		switch k {
		case "TEAMMEM_DATA_DIR":
			return dir
		case "TEAMMEM_ADDR":
			return "127.0.0.1:0"
		case "TEAMMEM_ORG":
			return "from-env"
		}
		return ""
	}
	go func() {
		done <- run(ctx, []string{"serve", "--org", "from-flag"}, env{stdout: io.Discard, stderr: logs, getenv: getenv})
	}()
	defer func() { cancel(); <-done }()
	var url string
	for i := 0; i < 1500 && url == ""; i++ {
		if m := listenRE.FindStringSubmatch(logs.String()); m != nil {
			url = "http://" + m[1]
		}
		time.Sleep(20 * time.Millisecond)
	}
	if url == "" {
		t.Fatalf("server did not start:\n%s", logs.String())
	}
	tok, _ := os.ReadFile(filepath.Join(dir, "admin.token"))
	request(t, http.MethodPut, url+api.PathTeamMemory+"?repo=a/b", strings.TrimSpace(string(tok)), `{"entries":{"a.md":"a"}}`)
	_, body := request(t, http.MethodGet, url+api.PathTeamMemory+"?repo=a/b", strings.TrimSpace(string(tok)), "")
	if !strings.Contains(body, `"organizationId":"from-flag"`) {
		t.Errorf("flag did not win over env: %s", body)
	}
}

func TestMigrateEmbedded(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	e := env{stdout: &out, stderr: io.Discard, getenv: func(string) string { return "" }}
	if err := run(context.Background(), []string{"migrate", "up", "--data-dir", dir}, e); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := run(context.Background(), []string{"migrate", "version", "--data-dir", dir}, e); err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^schema version [1-9]\d*\n$`).MatchString(out.String()) {
		t.Errorf("migrate version printed %q", out.String())
	}
}

// TestGracefulShutdownProcess builds the real binary, starts it, sends
// SIGTERM and expects exit status 0.
func TestGracefulShutdownProcess(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "teammem-server")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	logs := &proctest.Buffer{}
	cmd := proctest.Command(t, bin, "serve", "--addr", "127.0.0.1:0", "--data-dir", t.TempDir())
	cmd.Stderr = logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var url string
	for i := 0; i < 1500 && url == ""; i++ {
		if m := listenRE.FindStringSubmatch(logs.String()); m != nil {
			url = "http://" + m[1]
		}
		time.Sleep(20 * time.Millisecond)
	}
	if url == "" {
		cmd.Process.Kill()
		t.Fatalf("no listening line:\n%s", logs.String())
	}
	if code, _ := request(t, http.MethodGet, url+api.PathHealthz, "", ""); code != 200 {
		t.Errorf("healthz = %d", code)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) || err != nil {
		t.Fatalf("exit after SIGTERM: %v\n%s", err, logs.String())
	}
	if !strings.Contains(logs.String(), "stopped") {
		t.Errorf("no orderly stop in the log:\n%s", logs.String())
	}
}

// countingStore counts PurgeTombstones calls.
type countingStore struct {
	server.Store
	purges chan time.Time
}

func (c *countingStore) PurgeTombstones(ctx context.Context, before time.Time) (int, error) {
	c.purges <- before
	return 0, nil
}

func TestJanitorPurgesAtStart(t *testing.T) {
	cs := &countingStore{purges: make(chan time.Time, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { runJanitor(ctx, cs, 48*time.Hour, slog.New(slog.DiscardHandler)); close(done) }()
	select {
	case before := <-cs.purges:
		if d := time.Since(before); d < 47*time.Hour || d > 49*time.Hour {
			t.Errorf("purged before %v, want about 48 h ago", before)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no purge at start")
	}
	cancel()
	<-done
	runJanitor(context.Background(), cs, 0, slog.New(slog.DiscardHandler)) // 0 = keep forever: returns at once
}

func TestDebugAddrServesProfiles(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	logs := &proctest.Buffer{}
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--debug-addr", "127.0.0.1:0", "--data-dir", t.TempDir()},
			env{stdout: io.Discard, stderr: logs, getenv: func(string) string { return "" }})
	}()
	defer func() { cancel(); <-done }()
	re := regexp.MustCompile(`debug profiles on (127\.0\.0\.1:\d+)`)
	var addr string
	for i := 0; i < 1500 && addr == ""; i++ {
		if m := re.FindStringSubmatch(logs.String()); m != nil {
			addr = m[1]
		}
		time.Sleep(20 * time.Millisecond)
	}
	if addr == "" {
		t.Fatalf("no debug listener:\n%s", logs.String())
	}
	if code, body := request(t, http.MethodGet, "http://"+addr+"/debug/pprof/", "", ""); code != 200 || !strings.Contains(body, "goroutine") {
		t.Errorf("/debug/pprof/ = %d", code)
	}
}
