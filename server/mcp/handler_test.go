package mcp_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/auth"
	"github.com/teammem/teammem/server/httpkit"
	"github.com/teammem/teammem/server/mcp"
	"github.com/teammem/teammem/server/sqlite"
	"github.com/teammem/teammem/testkit/proctest"
)

// endpoint is mcp.New on a fresh embedded store behind httptest, as the
// router mounts it: inside httpkit's RequestIDs and, when authenticated,
// its VerifyCaller over a real token verifier.
type endpoint struct {
	url  string
	svc  *server.Service
	iss  *auth.Issuer
	logs *proctest.Buffer

	mu    sync.Mutex
	calls []string // tool/outcome, as ObserveToolCall was told
}

func newEndpoint(t *testing.T, authenticated bool) *endpoint {
	t.Helper()
	return newEndpointWith(t, authenticated, func(*mcp.Options) {})
}

// newEndpointWith is newEndpoint with the options set changes.
func newEndpointWith(t *testing.T, authenticated bool, set func(*mcp.Options)) *endpoint {
	t.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "teammem.db"), sqlite.Options{Migrate: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	verifier, err := auth.NewVerifier(key.Public(), auth.VerifierOptions{})
	if err != nil {
		t.Fatal(err)
	}
	e := &endpoint{svc: server.NewService(db, server.Config{Org: "acme-org", SecretScan: true}),
		iss: &auth.Issuer{Key: key}, logs: &proctest.Buffer{}}
	log := slog.New(slog.NewTextHandler(e.logs, nil))
	o := mcp.Options{Service: e.svc, Logger: log, Version: "9.9.9",
		ObserveToolCall: func(tool, outcome string, _ time.Duration) {
			e.mu.Lock()
			defer e.mu.Unlock()
			e.calls = append(e.calls, tool+"/"+outcome)
		}}
	set(&o)
	h := mcp.New(o)
	if authenticated {
		mw := &httpkit.Middleware{Log: log, Meter: noMeter{}, Auth: verifier}
		h = mw.VerifyCaller(h)
	}
	hs := httptest.NewServer(httpkit.RequestIDs(e.svc.ServerID())(h))
	t.Cleanup(hs.Close)
	e.url = hs.URL + mcp.Path
	return e
}

// observed returns the tool calls ObserveToolCall was told of.
func (e *endpoint) observed() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.calls)
}

// connect opens an MCP session over HTTP, sending token when not "".
func (e *endpoint) connect(t *testing.T, token string) *sdk.ClientSession {
	t.Helper()
	tr := &sdk.StreamableClientTransport{Endpoint: e.url, HTTPClient: &http.Client{Transport: bearer(token)}}
	s, err := sdk.NewClient(&sdk.Implementation{Name: "mcp-test", Version: "1"}, nil).Connect(context.Background(), tr, nil)
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// bearer sends its token with every request.
type bearer string

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	if b != "" {
		r = r.Clone(r.Context())
		r.Header.Set("Authorization", "Bearer "+string(b))
	}
	return http.DefaultTransport.RoundTrip(r)
}

type noMeter struct{}

func (noMeter) ObserveRequest(string, string, int, time.Duration) {}
func (noMeter) AuthFailure()                                      {}
func (noMeter) Conflict()                                         {}
func (noMeter) RateLimited()                                      {}

func callTool(t *testing.T, s *sdk.ClientSession, tool string, args map[string]any) *sdk.CallToolResult {
	t.Helper()
	res, err := s.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return res
}

// text is a tool result's text content.
func text(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// TestRoundTrip: initialize, tools/list and tools/call over real HTTP act
// for the caller httpkit's VerifyCaller verified: the write is the token
// subject's, the read sees it, and each call is observed and logged with
// the subject and the request id.
func TestRoundTrip(t *testing.T) {
	e := newEndpoint(t, true)
	tok, err := e.iss.Issue("ana", []string{"acme/*:write"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	s := e.connect(t, tok)
	if info := s.InitializeResult().ServerInfo; info.Name != "teammem" || info.Version != "9.9.9" {
		t.Errorf("server info %+v", info)
	}
	list, err := s.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
	}
	for _, want := range []string{"list_memories", "search_memories", "read_memory", "memory_history", "write_memory", "delete_memory", "list_proposals", "review_proposal"} {
		if !slices.Contains(names, want) {
			t.Errorf("tools/list has no %s: %v", want, names)
		}
	}

	w := callTool(t, s, "write_memory", map[string]any{"repo": "acme/api", "key": "db.md", "content": "---\ndescription: db\n---\nUse Postgres.\n"})
	if w.IsError {
		t.Fatalf("write_memory refused: %s", text(w))
	}
	r := callTool(t, s, "read_memory", map[string]any{"repo": "acme/api", "key": "db.md"})
	if r.IsError || !strings.Contains(text(r), "Use Postgres.") || !strings.Contains(text(r), `"author":"ana"`) {
		t.Errorf("read_memory: error %v, %s", r.IsError, text(r))
	}
	other := callTool(t, s, "read_memory", map[string]any{"repo": "globex/api", "key": "db.md"})
	if !other.IsError {
		t.Errorf("read_memory outside the grant answered: %s", text(other))
	}
	if got, want := e.observed(), []string{"write_memory/ok", "read_memory/ok", "read_memory/refused"}; !slices.Equal(got, want) {
		t.Errorf("observed %v, want %v", got, want)
	}
	logs := e.logs.String()
	if !strings.Contains(logs, `msg="mcp tool call" tool=write_memory outcome=ok repo=acme/api subject=ana`) ||
		!strings.Contains(logs, "request_id=") {
		t.Errorf("no tool call line with the subject and request id:\n%s", logs)
	}
	if strings.Contains(logs, "Use Postgres") || strings.Contains(logs, tok) {
		t.Errorf("the log holds content or the token:\n%s", logs)
	}
}

// TestNobodyIsRefused: a request that did not pass VerifyCaller carries no
// principal, and its tool calls read and write nothing.
func TestNobodyIsRefused(t *testing.T) {
	e := newEndpoint(t, false)
	admin := server.Principal{Subject: "admin", Grants: []server.Grant{{Glob: []string{"**"}, Perm: server.PermAdmin}}}
	if _, err := e.svc.Put(context.Background(), admin, "acme/api", server.PutInput{Entries: map[string]string{"db.md": "Use Postgres.\n"}}); err != nil {
		t.Fatal(err)
	}
	s := e.connect(t, "")
	if r := callTool(t, s, "read_memory", map[string]any{"repo": "acme/api", "key": "db.md"}); !r.IsError || strings.Contains(text(r), "Postgres") {
		t.Errorf("read_memory without a caller: error %v, %s", r.IsError, text(r))
	}
	if w := callTool(t, s, "write_memory", map[string]any{"repo": "acme/new", "key": "a.md", "content": "x\n"}); !w.IsError {
		t.Errorf("write_memory without a caller: %s", text(w))
	}
	if _, err := e.svc.Snapshot(context.Background(), admin, "acme/new", server.ReadOptions{}); !errors.Is(err, server.ErrNotFound) {
		t.Errorf("acme/new after a refused write: %v, want not found", err)
	}
	if got, want := e.observed(), []string{"read_memory/refused", "write_memory/refused"}; !slices.Equal(got, want) {
		t.Errorf("observed %v, want %v", got, want)
	}
}

// TestBearerRequired: behind VerifyCaller, a request without a token gets
// the 401 envelope and never reaches the tools.
func TestBearerRequired(t *testing.T) {
	e := newEndpoint(t, true)
	req, _ := http.NewRequest(http.MethodPost, e.url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") == "" {
		t.Errorf("no token: %d, WWW-Authenticate %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
	if len(e.observed()) != 0 {
		t.Errorf("tool calls observed: %v", e.observed())
	}
}
