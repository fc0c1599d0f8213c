package router_test

import (
	"context"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/router"
	"github.com/teammem/teammem/server/sqlite"
	"github.com/teammem/teammem/testkit/proctest"
	"github.com/teammem/teammem/testkit/servertest"
)

// mcpInitialize is a JSON-RPC initialize request as an MCP client sends it.
const mcpInitialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// TestSurfacesSideBySide: the REST API, the web UI and /mcp answer on one
// handler, each behind its own door (bearer token, session), with the
// shared request id, access log and metrics.
func TestSurfacesSideBySide(t *testing.T) {
	var logs proctest.Buffer
	ts := servertest.Start(t, servertest.Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	mcpHeaders := []string{"Content-Type", "application/json", "Accept", "application/json, text/event-stream"}
	for _, tt := range []struct {
		name          string
		method, path  string
		token         string
		body          string
		status        int
		contentPrefix string
	}{
		{"probe", http.MethodGet, api.PathHealthz, "", "", http.StatusOK, "application/json"},
		{"REST without a token", http.MethodGet, api.PathRepos, "", "", http.StatusUnauthorized, "application/json"},
		{"REST", http.MethodGet, api.PathRepos, ts.Admin, "", http.StatusOK, "application/json"},
		{"web UI sign-in", http.MethodGet, "/ui/login", "", "", http.StatusOK, "text/html"},
		{"web UI page without a session", http.MethodGet, "/ui/search", "", "", http.StatusSeeOther, ""},
		{"MCP without a token", http.MethodPost, "/mcp", "", mcpInitialize, http.StatusUnauthorized, "application/json"},
		{"MCP", http.MethodPost, "/mcp", ts.Admin, mcpInitialize, http.StatusOK, "application/json"},
		{"nothing", http.MethodGet, "/nothing", ts.Admin, "", http.StatusNotFound, "application/json"},
		{"metrics", http.MethodGet, api.PathMetrics, "", "", http.StatusOK, "text/plain"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			req := ts.NewRequest(context.Background(), tt.method, tt.path, tt.token, strings.NewReader(tt.body), mcpHeaders...)
			client := *ts.Client
			client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tt.status || !strings.HasPrefix(resp.Header.Get("Content-Type"), tt.contentPrefix) {
				t.Errorf("%s %s: %d %q; want %d %s", tt.method, tt.path, resp.StatusCode, resp.Header.Get("Content-Type"), tt.status, tt.contentPrefix)
			}
			if resp.Header.Get(api.HeaderRequestID) == "" || resp.Header.Get(api.HeaderServerID) == "" {
				t.Errorf("%s %s: no request or server id", tt.method, tt.path)
			}
		})
	}
	m := ts.Do(http.MethodGet, api.PathMetrics, "", nil)
	for _, want := range []string{`route="/mcp"`, `route="/ui/login"`, `route="` + api.PathRepos + `"`, "teammem_auth_failures_total 2"} {
		if !strings.Contains(string(m.Body), want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	if !strings.Contains(logs.String(), `route=/mcp`) || !strings.Contains(logs.String(), "subject=admin") {
		t.Errorf("no access line for /mcp with its caller:\n%s", logs.String())
	}
}

// TestNoSessionStore: with authentication on, a handler without a store
// for signed-out web UI sessions is an error, not a panic.
func TestNoSessionStore(t *testing.T) {
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "teammem.db"), sqlite.Options{Migrate: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_, err = router.New(router.Options{Service: server.NewService(db, server.Config{})})
	if err == nil || !strings.Contains(err.Error(), "session store") {
		t.Errorf("router.New without a session store: %v", err)
	}
}
