package realclient

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/teammem/teammem/testkit/proctest"
)

// TeamSync is one run of Claude Code's own team memory sync against a
// teammem server: what a teammate who uses the stock client and no agent
// does. See (*ClaudeCode).StartTeamSync.
type TeamSync struct {
	// Dir is the checkout the session runs in; its origin must be a
	// github.com remote, or the client does not sync.
	Dir string
	// Home is the user's home, created when missing (empty: a fresh one).
	Home string
	// Server is the teammem server's base URL, Token the bearer token the
	// client presents to it.
	Server, Token string
}

// Exchange is one request the client made to the server and the status
// it was answered with.
type Exchange struct {
	Method, Path string
	Status       int
}

// TeamSyncRun is a running session. It is safe for concurrent use.
type TeamSyncRun struct {
	cmd     *exec.Cmd
	done    chan struct{}
	release chan struct{}
	stop    sync.Once
	mu      sync.Mutex
	seen    []Exchange
	debug   string          // the configuration's debug log folder
	before  map[string]bool // the logs in it before the run
	// Stdout and Stderr are what the client printed so far.
	Stdout, Stderr proctest.Buffer
}

// StartTeamSync starts `claude -p hi` in s.Dir with team memory sync on,
// as a claude.ai subscriber's client has it: the sync's feature flag set
// in the cached configuration, an OAuth credential whose access token is
// s.Token (the client sends it as the bearer to the sync URL), and
// TEAM_MEMORY_SYNC_URL a recording relay to s.Server. Telemetry stays on
// (the client consults feature flags only with it on), and every request
// to the outside goes through a proxy that holds it unanswered, so that
// nothing leaves the machine and the session stays open, waiting for its
// model, until Stop. The client pulls at start, then watches its team
// folder (Logged tells when) and pushes what changes in it.
func (c *ClaudeCode) StartTeamSync(t testing.TB, s TeamSync) *TeamSyncRun {
	t.Helper()
	home := s.Home
	if home == "" {
		home = t.TempDir()
	}
	if err := writeTeamSyncConfig(home, s.Token); err != nil {
		t.Fatal(err)
	}
	r := &TeamSyncRun{done: make(chan struct{}), release: make(chan struct{}),
		debug: filepath.Join(home, ".claude", "debug"), before: map[string]bool{}}
	for _, p := range r.debugLogs() {
		r.before[p] = true
	}
	relay := r.relay(t, s.Server)
	outside := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		select {
		case <-r.release:
		case <-req.Context().Done():
		}
		http.Error(w, "no network in tests", http.StatusBadGateway)
	}))
	args := append(append([]string{}, c.Argv...), "-p", "hi", "--debug")
	r.cmd = exec.Command(args[0], args[1:]...)
	r.cmd.Dir = s.Dir
	r.cmd.Env = append(homeEnv(home),
		"TEAM_MEMORY_SYNC_URL="+relay.URL,
		"HTTPS_PROXY="+outside.URL,
		"HTTP_PROXY="+outside.URL,
		"NO_PROXY=127.0.0.1")
	r.cmd.Stdout, r.cmd.Stderr = &r.Stdout, &r.Stderr
	proctest.Own(t, r.cmd)
	if err := r.cmd.Start(); err != nil {
		t.Fatalf("claude -p: %v", err)
	}
	go func() { r.cmd.Wait(); close(r.done) }()
	t.Cleanup(func() {
		r.Stop()
		outside.Close()
		relay.Close()
	})
	return r
}

// relay starts the recording reverse proxy to server.
func (r *TeamSyncRun) relay(t testing.TB, server string) *httptest.Server {
	t.Helper()
	u, err := url.Parse(server)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(u)
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		proxy.ServeHTTP(sw, req)
		r.mu.Lock()
		r.seen = append(r.seen, Exchange{Method: req.Method, Path: req.URL.RequestURI(), Status: sw.status})
		r.mu.Unlock()
	}))
}

// Exchanges returns the client's requests to the server so far, in order.
func (r *TeamSyncRun) Exchanges() []Exchange {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Exchange(nil), r.seen...)
}

// Logged reports whether the session's debug log holds s (such as
// "team-memory-watcher: watching", said once its folder is watched).
func (r *TeamSyncRun) Logged(s string) bool {
	for _, p := range r.debugLogs() {
		if r.before[p] {
			continue
		}
		if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), s) {
			return true
		}
	}
	return false
}

// debugLogs lists the debug logs of the run's configuration.
func (r *TeamSyncRun) debugLogs() []string {
	m, _ := filepath.Glob(filepath.Join(r.debug, "*.txt"))
	return m
}

// Stop ends the session: the held requests fail, and the client is given
// SIGINT, then ended with its process group. It returns once the client
// exited.
func (r *TeamSyncRun) Stop() {
	r.stop.Do(func() {
		close(r.release)
		_ = r.cmd.Process.Signal(os.Interrupt)
		select {
		case <-r.done:
		case <-time.After(10 * time.Second):
			_ = r.cmd.Process.Kill()
			<-r.done
		}
	})
}

// String describes the run for a failure message.
func (r *TeamSyncRun) String() string {
	return fmt.Sprintf("requests %+v\nstdout: %s\nstderr: %s", r.Exchanges(), r.Stdout.String(), r.Stderr.String())
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(status int) {
	w.status = status
	w.ResponseWriter.WriteHeader(status)
}

// writeTeamSyncConfig writes writeClaudeConfig's configuration with the
// team memory sync's feature flag on, and a claude.ai OAuth credential
// (inference and profile scopes, valid for a day) whose access token is
// token.
func writeTeamSyncConfig(home, token string) error {
	if err := writeClaudeConfig(home, map[string]any{"cachedGrowthBookFeatures": map[string]bool{"tengu_herring_clock": true}}); err != nil {
		return err
	}
	cred, _ := json.Marshal(map[string]any{"claudeAiOauth": map[string]any{
		"accessToken":      token,
		"refreshToken":     "unused",
		"expiresAt":        time.Now().Add(24 * time.Hour).UnixMilli(),
		"scopes":           []string{"user:inference", "user:profile"},
		"subscriptionType": "team",
	}})
	return os.WriteFile(filepath.Join(home, ".claude", ".credentials.json"), cred, 0o600)
}
